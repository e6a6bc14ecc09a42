import { parse, YAMLParseError } from 'yaml';
import { parseSimpleYaml } from './simple-yaml.js';

export interface Frontmatter {
  /** The frontmatter mapping; empty when the file has none. */
  fields: Record<string, unknown>;
  /** Whether the file opened with a frontmatter block at all. */
  present: boolean;
  body: string;
}

export type FrontmatterResult = { ok: true; value: Frontmatter } | { ok: false; reason: string };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Splits `---` YAML frontmatter from a markdown body; a file without it is body-only (SPEC 3.2). */
export function parseFrontmatter(text: string): FrontmatterResult {
  const opening = OPENING.exec(text);
  if (!opening)
    return { ok: true, value: { fields: {}, present: false, body: text.replace(/^\uFEFF/, '').trim() } };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { ok: false, reason: 'unterminated frontmatter: no closing "---" line' };
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).trim();
  let data: unknown = parseSimpleYaml(yamlText);
  try {
    data ??= parse(yamlText, { prettyErrors: false });
  } catch (err) {
    const message = err instanceof YAMLParseError ? err.message.split('\n')[0] : String(err);
    return { ok: false, reason: `unparsable frontmatter: ${message}` };
  }
  if (data === null || data === undefined) return { ok: true, value: { fields: {}, present: true, body } };
  if (!isMapping(data)) return { ok: false, reason: 'unparsable frontmatter: expected a mapping of keys' };
  return { ok: true, value: { fields: data, present: true, body } };
}
