import { findNodeAtLocation, type ParseError, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { z } from 'zod';

export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** `providers.x.type`, `rules[0].turns[2]`, or `(root)`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** Deeper nesting than any real config needs; the parser recurses, so deeper input is refused first. */
export const MAX_JSON_DEPTH = 256;

/** Offset of the first bracket nested deeper than `limit` (strings and comments skipped), or -1. */
export function excessiveNestingAt(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '[' || c === '{') {
      if (++depth > limit) return i;
    } else if (c === ']' || c === '}') {
      depth--;
    }
  }
  return -1;
}

/** JSON with comments and trailing commas; a syntax error names the file and line. */
export function parseJsonc(
  text: string,
  source: string,
  what: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const deep = excessiveNestingAt(text);
  if (deep >= 0) {
    return {
      ok: false,
      message: `${source}:${lineOf(text, deep)}: invalid JSON in ${what} (nested deeper than ${MAX_JSON_DEPTH} levels)`,
    };
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length === 0) return { ok: true, value };
  const e = errors[0];
  return {
    ok: false,
    message: `${source}:${lineOf(text, e.offset)}: invalid JSON in ${what} (${printParseErrorCode(e.error)})`,
  };
}

/**
 * One validation problem as a user reads it: `file:line: invalid <what> at <json path>: <expectation>`,
 * the line found by locating the failing path in the source text when it is known.
 */
export function describeSchemaIssue(
  issue: z.core.$ZodIssue,
  source: string,
  what: string,
  text?: string,
): { message: string; jsonPath: string } {
  const keys = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const path = issue.code === 'unrecognized_keys' ? [...keys, issue.keys[0]] : keys;
  const tree = text === undefined ? undefined : parseTree(text);
  // A missing key has no node of its own: point at the nearest enclosing one that exists.
  let node: ReturnType<typeof findNodeAtLocation>;
  for (let depth = path.length; tree && !node && depth >= 0; depth--)
    node = findNodeAtLocation(tree, path.slice(0, depth));
  const where = node && text !== undefined ? `${source}:${lineOf(text, node.offset)}` : source;
  const jsonPath = formatJsonPath(path);
  const expectation =
    issue.code === 'unrecognized_keys'
      ? `unknown key "${issue.keys.join('", "')}"`
      : issue.message.replace(/^Invalid input: /, '');
  return { message: `${where}: invalid ${what} at ${jsonPath}: ${expectation}`, jsonPath };
}
