import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';
import { type ParsedRules, PermissionRuleError, parseRuleBlock } from './rules.js';

/**
 * Reads an operator permission profile (`--permissions <file>`, SPEC 6.4): a JSON (comments allowed)
 * or YAML file holding `{allow, ask, deny}`. Any problem is a PermissionRuleError naming the file.
 */
export function parseOperatorProfile(file: string, text: string): ParsedRules {
  let block: unknown;
  if (file.endsWith('.json') || text.trimStart().startsWith('{')) {
    const errors: ParseError[] = [];
    block = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) {
      throw new PermissionRuleError(`${file}: invalid JSON (${printParseErrorCode(errors[0].error)})`);
    }
  } else {
    try {
      block = parseYaml(text);
    } catch (error) {
      throw new PermissionRuleError(
        `${file}: invalid YAML (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  return parseRuleBlock(block, file, text);
}
