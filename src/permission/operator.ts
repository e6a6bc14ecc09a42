import { parseJsonc } from '../util/json-errors.js';
import { parseYamlText } from '../util/yaml-text.js';
import { type ParsedRules, PermissionRuleError, parseRuleBlock } from './rules.js';

/**
 * Reads an operator permission profile (`--permissions <file>`, SPEC 6.4): a JSON (comments allowed)
 * or YAML file holding `{allow, ask, deny}`. Any problem is a PermissionRuleError naming the file and
 * line; a YAML warning is one too, since a doubtful construct in a safety file must not pass quietly.
 */
export function parseOperatorProfile(file: string, text: string): ParsedRules {
  let block: unknown;
  if (file.endsWith('.json') || text.trimStart().startsWith('{')) {
    const parsed = parseJsonc(text, file, 'permission profile');
    if (!parsed.ok) throw new PermissionRuleError(parsed.message);
    block = parsed.value;
  } else {
    const parsed = parseYamlText(text);
    const problem = parsed.ok ? parsed.warnings[0] : parsed;
    if (problem) {
      const where = problem.line === undefined ? file : `${file}:${problem.line}`;
      throw new PermissionRuleError(`${where}: invalid YAML (${problem.message})`);
    }
    if (parsed.ok) block = parsed.value;
  }
  return parseRuleBlock(block, file, text);
}
