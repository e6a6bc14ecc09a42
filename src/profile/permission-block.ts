import { type ParsedRules, PermissionRuleError, parseRuleBlock } from '../permission/rules.js';
import type { ProfilePermission } from './types.js';

export type PermissionBlockResult =
  | { ok: true; permission?: ProfilePermission }
  | { ok: false; reason: string };

/**
 * Validates a profile's `permission:` block. A malformed entry fails the whole profile (SPEC 3.3);
 * a block with no rules in any list equals no block.
 */
export function readPermissionBlock(raw: unknown, file: string, text: string): PermissionBlockResult {
  let rules: ParsedRules;
  try {
    rules = parseRuleBlock(raw, file, text);
  } catch (err) {
    if (!(err instanceof PermissionRuleError)) throw err;
    return { ok: false, reason: `malformed permission block: ${withoutFilePrefix(err.message, file)}` };
  }
  if (rules.rules.length === 0) return { ok: true };
  const block = {
    ...(rules.allow.length > 0 ? { allow: rules.allow.map((r) => r.text) } : {}),
    ...(rules.ask.length > 0 ? { ask: rules.ask.map((r) => r.text) } : {}),
    ...(rules.deny.length > 0 ? { deny: rules.deny.map((r) => r.text) } : {}),
  };
  return { ok: true, permission: { block, file, text, rules } };
}

/** The warning already names the file; keep only the line number the rule error adds. */
function withoutFilePrefix(message: string, file: string): string {
  if (!message.startsWith(`${file}:`)) return message;
  const rest = message.slice(file.length + 1);
  const line = /^(\d+): /.exec(rest);
  return line ? `line ${line[1]}: ${rest.slice(line[0].length)}` : rest.trim();
}
