import { dirname, isAbsolute, join } from 'node:path';
import { PATH_TOOLS, translateToolName } from '../tool/names.js';
import { lineOf } from '../util/json-errors.js';
import type { PermissionAction } from './types.js';

/** One permission rule (SPEC 6.1): `tool` or `tool(pattern)`, with the list it came from and its origin. */
export interface Rule {
  /** The rule as written (trimmed), e.g. `bash(git diff *)` or `Bash(git diff:*)`. */
  text: string;
  /** cadre tool name (translated from Claude Code, Reasonix or bnerd); may contain `*` (`mcp__fs__*`). */
  tool: string;
  /** The text between the parentheses, absent for a bare `tool` rule. */
  pattern?: string;
  action: PermissionAction;
  /** Where the rule was written: `file:line`, or `file` when the line is unknown. */
  source: string;
  /** Matches paths inside the project only (an allow of an untrusted project, SPEC 6.4). */
  insideOnly?: boolean;
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

/**
 * Parses one rule into the cadre rules it stands for: a cadre name is one rule; a Claude Code, Reasonix or
 * bnerd name (`Edit(src/**)`, `shell_exec(git *)`) becomes one rule per cadre tool it names, all with the
 * text as written. A name that is no tool — not cadre's, not in the translation table, not `mcp__…`,
 * not a `*` wildcard — is an error naming the source (SPEC 6.1). `action` defaults to allow.
 */
export function parseRules(text: string, source: string, action: PermissionAction = 'allow'): Rule[] {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  const tool = (open === -1 ? trimmed : trimmed.slice(0, open)).trim();
  if (tool === '') throw new PermissionRuleError(`${source}: rule "${text}" has an empty tool name`);
  if (!TOOL_NAME.test(tool)) {
    throw new PermissionRuleError(
      `${source}: rule "${text}" has an invalid tool name "${tool}" (letters, digits, _ . - and * only)`,
    );
  }
  let pattern: string | undefined;
  if (open === -1) {
    if (trimmed.includes(')'))
      throw new PermissionRuleError(`${source}: rule "${text}" has an unmatched ")"`);
  } else {
    if (!trimmed.endsWith(')')) {
      throw new PermissionRuleError(`${source}: rule "${text}" has an unterminated pattern (missing ")")`);
    }
    pattern = trimmed.slice(open + 1, -1).trim();
    if (pattern === '') throw new PermissionRuleError(`${source}: rule "${text}" has an empty pattern`);
  }
  const ruleText = pattern === undefined ? trimmed : `${tool}(${pattern})`;
  if (tool.includes('*')) return [{ text: ruleText, tool, pattern, action, source }];
  const known = translateToolName(tool);
  if (!known) {
    throw new PermissionRuleError(
      `${source}: rule "${text}" names no known tool "${tool}" (a cadre tool, a Claude Code, Reasonix or bnerd ` +
        'tool name, or mcp__server__tool)',
    );
  }
  const tools = pattern === undefined ? known.tools : (known.patternTools ?? known.tools);
  return tools.map((cadreTool) => {
    const anchored =
      pattern !== undefined && known.source === 'claude-code' && PATH_TOOLS.has(cadreTool)
        ? claudeCodePath(pattern, source)
        : pattern;
    return anchored === undefined
      ? { text: ruleText, tool: cadreTool, action, source }
      : { text: ruleText, tool: cadreTool, pattern: anchored, action, source };
  });
}

/** Parses a rule written in cadre's own names (built-in defaults, session approvals): the first it stands for. */
export function parseRule(text: string, source: string, action: PermissionAction = 'allow'): Rule {
  return parseRules(text, source, action)[0];
}

/**
 * Claude Code's path anchors: `//x` is absolute, `~/x` under home, `/x` relative to the settings file's
 * folder, `x` and `./x` relative to the project (cadre's own reading of a relative pattern).
 */
function claudeCodePath(pattern: string, source: string): string {
  if (pattern.startsWith('//')) return pattern.slice(1);
  if (pattern.startsWith('/')) {
    const file = source.replace(/:\d+$/, '');
    return isAbsolute(file) ? join(dirname(file), pattern.slice(1)) : pattern.slice(1);
  }
  return pattern;
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
      parsed[key].push(...parseRules(item, source, key));
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
