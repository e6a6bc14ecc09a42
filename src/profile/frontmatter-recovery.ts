/**
 * Claude Code reads agent frontmatter more loosely than YAML: an unquoted `: ` inside a description or
 * an indented key loads there. For imported files only, when strict YAML fails, the frontmatter is read
 * line by line the same way: `key: value` lines (indented or not), `- item` lines under an empty key,
 * and indented continuation lines folded into the value above. Anything else (nested mappings, flow
 * collections) is not recovered: the strict error stands.
 */

type Value = string | number | boolean | null | string[];

const KEY_LINE = /^\s*([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*?))?\s*$/;
const ITEM_LINE = /^\s*-\s+(.*?)\s*$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

function unquote(raw: string): string {
  const quoted = raw.length >= 2 && (raw[0] === '"' || raw[0] === "'") && raw.endsWith(raw[0]);
  return quoted ? raw.slice(1, -1) : raw;
}

function scalar(raw: string): Value {
  if (raw === '' || raw === '~' || raw === 'null') return null;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (NUMBER.test(raw)) return Number(raw);
  return unquote(raw);
}

/** The frontmatter's fields, or undefined when the text is not in the recoverable shape. */
export function recoverFrontmatterLines(yamlText: string): Record<string, unknown> | undefined {
  const fields = new Map<string, Value>();
  let last: string | undefined;
  for (const line of yamlText.split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = ITEM_LINE.exec(line);
    const previous = last === undefined ? undefined : fields.get(last);
    if (item && last !== undefined && (previous === null || Array.isArray(previous))) {
      fields.set(last, [...(Array.isArray(previous) ? previous : []), unquote(item[1])]);
      continue;
    }
    const key = KEY_LINE.exec(line);
    // An indented key under an empty one is a nested mapping: out of reach of a line reader.
    if (key && !(/^\s/.test(line) && previous === null)) {
      last = key[1];
      fields.set(last, scalar(key[2] ?? ''));
      continue;
    }
    if (/^\s/.test(line) && last !== undefined && typeof previous === 'string') {
      fields.set(last, `${previous} ${line.trim()}`);
      continue;
    }
    return undefined;
  }
  return fields.size === 0 ? undefined : Object.fromEntries(fields);
}
