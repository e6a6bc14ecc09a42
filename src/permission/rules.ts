import { lineOf } from '../util/json-errors.js';
import type { PermissionAction } from './types.js';

/** One permission rule (SPEC 6.1): `tool` or `tool(pattern)`, with the list it came from and its origin. */
export interface Rule {
  /** The rule as written (trimmed), e.g. `bash(git diff *)`. */
  text: string;
  /** Tool name; may contain `*` wildcards (`mcp__fs__*`, `*`). */
  tool: string;
  /** The text between the parentheses, absent for a bare `tool` rule. */
  pattern?: string;
  action: PermissionAction;
  /** Where the rule was written: `file:line`, or `file` when the line is unknown. */
  source: string;
}

/** A parsed `{allow, ask, deny}` block. `rules` is the block's contribution to the composed list. */
export interface ParsedRules {
  allow: Rule[];
  ask: Rule[];
  deny: Rule[];
  /**
   * allow, then ask, then deny: within one block the stricter list is appended later, so under
   * "last match wins" a block that both allows and denies the same call denies it.
   */
  rules: Rule[];
}

/** A malformed rule or block. A deny rule is a safety boundary, so it is never dropped silently (SPEC 3.3). */
export class PermissionRuleError extends Error {
  override name = 'PermissionRuleError';
}

const LIST_KEYS = ['allow', 'ask', 'deny'] as const;
const TOOL_NAME = /^[A-Za-z0-9_.*-]+$/;

/** Parses one rule. `action` defaults to allow (session approvals are allows). */
export function parseRule(text: string, source: string, action: PermissionAction = 'allow'): Rule {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  const tool = (open === -1 ? trimmed : trimmed.slice(0, open)).trim();
  if (tool === '') throw new PermissionRuleError(`${source}: rule "${text}" has an empty tool name`);
  if (!TOOL_NAME.test(tool)) {
    throw new PermissionRuleError(
      `${source}: rule "${text}" has an invalid tool name "${tool}" (letters, digits, _ . - and * only)`,
    );
  }
  if (open === -1) {
    if (trimmed.includes(')'))
      throw new PermissionRuleError(`${source}: rule "${text}" has an unmatched ")"`);
    return { text: trimmed, tool, action, source };
  }
  if (!trimmed.endsWith(')')) {
    throw new PermissionRuleError(`${source}: rule "${text}" has an unterminated pattern (missing ")")`);
  }
  const pattern = trimmed.slice(open + 1, -1).trim();
  if (pattern === '') throw new PermissionRuleError(`${source}: rule "${text}" has an empty pattern`);
  return { text: `${tool}(${pattern})`, tool, pattern, action, source };
}

/**
 * Parses a `permission:` block. `sourceText` is the file's text, used to name each rule's line.
 * Throws PermissionRuleError for a non-object block, an unknown list key, a non-list value,
 * a non-string item or a malformed rule. `null`/`undefined` (an empty block) is no rules.
 */
export function parseRuleBlock(block: unknown, sourceFile: string, sourceText?: string): ParsedRules {
  const parsed: ParsedRules = { allow: [], ask: [], deny: [], rules: [] };
  if (block === null || block === undefined) return parsed;
  if (typeof block !== 'object' || Array.isArray(block)) {
    throw new PermissionRuleError(
      `${sourceFile}: permission block must be an object with allow/ask/deny lists`,
    );
  }
  const locator = new LineLocator(sourceText);
  for (const [key, value] of Object.entries(block)) {
    if (!isListKey(key)) {
      throw new PermissionRuleError(
        `${sourceFile}: unknown permission list "${key}" (expected allow, ask or deny)`,
      );
    }
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value))
      throw new PermissionRuleError(`${sourceFile}: permission.${key} must be a list`);
    for (const [index, item] of value.entries()) {
      if (typeof item !== 'string') {
        throw new PermissionRuleError(
          `${sourceFile}: permission.${key}[${index}] must be a string rule, got ${JSON.stringify(item) ?? typeof item}`,
        );
      }
      const line = locator.lineOf(item);
      const source = line === undefined ? sourceFile : `${sourceFile}:${line}`;
      parsed[key].push(parseRule(item, source, key));
    }
  }
  parsed.rules = [...parsed.allow, ...parsed.ask, ...parsed.deny];
  return parsed;
}

function isListKey(key: string): key is (typeof LIST_KEYS)[number] {
  return (LIST_KEYS as readonly string[]).includes(key);
}

/** Finds the line of each rule string in the file; repeated strings take successive occurrences. */
class LineLocator {
  private readonly used = new Set<number>();
  constructor(private readonly text: string | undefined) {}

  lineOf(rule: string): number | undefined {
    if (!this.text || rule.trim() === '') return undefined;
    const needle = rule.trim();
    let from = 0;
    for (;;) {
      const at = this.text.indexOf(needle, from);
      if (at === -1) return undefined;
      if (!this.used.has(at)) {
        this.used.add(at);
        return lineOf(this.text, at);
      }
      from = at + 1;
    }
  }
}
