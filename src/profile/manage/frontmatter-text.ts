import { isMap, isScalar, parseDocument, stringify } from 'yaml';

/** A frontmatter value the profile editors write: a one-line string, a boolean or a list of names. */
export type ManagedValue = string | boolean | readonly string[];

/** Key → new value; `null` removes the key. Keys not named are left exactly as they are. */
export type FrontmatterChanges = ReadonlyMap<string, ManagedValue | null>;

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/m;

/** The frontmatter of a profile file as offsets into its text, so edits keep every other byte. */
interface Split {
  /** Offset where the YAML text starts (after the opening `---` line); -1 when the file has none. */
  yamlStart: number;
  /** Offset of the closing `---` line. */
  yamlEnd: number;
  /** Offset where the body starts (after the closing line). */
  bodyStart: number;
}

function split(text: string): Split | undefined {
  const opening = OPENING.exec(text);
  if (!opening) return undefined;
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return undefined;
  const yamlStart = opening[0].length;
  return {
    yamlStart,
    yamlEnd: yamlStart + closing.index,
    bodyStart: yamlStart + closing.index + closing[0].length,
  };
}

/** One `key: value` line as the editors write it; strings are quoted only where YAML needs it. */
export function frontmatterLine(key: string, value: ManagedValue): string {
  const yaml =
    typeof value === 'string' || typeof value === 'boolean'
      ? stringify(value, { lineWidth: 0 })
      : stringify([...value], { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 });
  return `${key}: ${yaml.trimEnd()}`;
}

/** A new profile file: frontmatter in the given key order, then the prompt. */
export function renderProfileFile(fields: readonly [string, ManagedValue][], prompt: string): string {
  const lines = fields.map(([key, value]) => frontmatterLine(key, value));
  return `---\n${lines.join('\n')}\n---\n${prompt.trim()}\n`;
}

/** Where each top-level key's text lies: from the start of its line to the end of its value's last line. */
function keySpans(yamlText: string): Map<string, { start: number; end: number }> {
  const doc = parseDocument(yamlText);
  const spans = new Map<string, { start: number; end: number }>();
  if (!isMap(doc.contents)) return spans;
  for (const pair of doc.contents.items) {
    if (!isScalar(pair.key) || !pair.key.range) continue;
    const keyStart = pair.key.range[0];
    const start = yamlText.lastIndexOf('\n', keyStart - 1) + 1;
    const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
    const valueEnd = valueRange ? valueRange[1] : pair.key.range[1];
    const newline = yamlText.indexOf('\n', Math.max(valueEnd - 1, keyStart));
    const end = newline < 0 ? yamlText.length : newline + 1;
    spans.set(String(pair.key.value), { start, end });
  }
  return spans;
}

/**
 * Applies `changes` to a profile file's frontmatter and leaves every other byte as it was: a changed key
 * is rewritten in place, a removed key loses its lines, a new key is added at the end of the block. A
 * file without frontmatter gains a block in front of its unchanged body.
 */
export function editFrontmatter(text: string, changes: FrontmatterChanges): string {
  const parts = split(text);
  if (!parts) {
    const added = [...changes].filter(([, v]) => v !== null) as [string, ManagedValue][];
    if (added.length === 0) return text;
    return `---\n${added.map(([k, v]) => frontmatterLine(k, v)).join('\n')}\n---\n${text}`;
  }
  let yamlText = text.slice(parts.yamlStart, parts.yamlEnd);
  const spans = keySpans(yamlText);
  // Rewritten from the end so earlier offsets stay valid.
  const present = [...changes]
    .filter(([key]) => spans.has(key))
    .sort(([a], [b]) => (spans.get(b)?.start ?? 0) - (spans.get(a)?.start ?? 0));
  for (const [key, value] of present) {
    const span = spans.get(key);
    if (!span) continue;
    const replacement = value === null ? '' : `${frontmatterLine(key, value)}\n`;
    yamlText = yamlText.slice(0, span.start) + replacement + yamlText.slice(span.end);
  }
  const appended = [...changes].filter(([key, value]) => !spans.has(key) && value !== null) as [
    string,
    ManagedValue,
  ][];
  if (appended.length > 0) {
    if (yamlText !== '' && !yamlText.endsWith('\n')) yamlText += '\n';
    yamlText += appended.map(([key, value]) => `${frontmatterLine(key, value)}\n`).join('');
  }
  return text.slice(0, parts.yamlStart) + yamlText + text.slice(parts.yamlEnd);
}

/** Replaces the body (the system prompt) and keeps the frontmatter block byte for byte. */
export function replaceBody(text: string, prompt: string): string {
  const parts = split(text);
  const head = parts ? text.slice(0, parts.bodyStart) : '';
  const separator = head === '' || head.endsWith('\n') ? '' : '\n';
  return `${head}${separator}${prompt.trim()}\n`;
}
