import { parseYamlText } from '../util/yaml-text.js';
import { parseSimpleYaml } from './simple-yaml.js';

export interface Frontmatter {
  /** The frontmatter mapping; empty when the file has none. */
  fields: Record<string, unknown>;
  /** Whether the file opened with a frontmatter block at all. */
  present: boolean;
  body: string;
  /** YAML warnings, each naming its line in the file. */
  notes: string[];
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
    return {
      ok: true,
      value: { fields: {}, present: false, body: text.replace(/^\uFEFF/, '').trim(), notes: [] },
    };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { ok: false, reason: 'unterminated frontmatter: no closing "---" line' };
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).trim();
  // The YAML starts on the file's second line.
  const at = (line: number | undefined) => (line === undefined ? '' : ` at line ${line + 1}`);
  let data: unknown = parseSimpleYaml(yamlText);
  const notes: string[] = [];
  if (data === undefined) {
    const parsed = parseYamlText(yamlText);
    if (!parsed.ok)
      return { ok: false, reason: `unparsable frontmatter${at(parsed.line)}: ${parsed.message}` };
    for (const w of parsed.warnings) notes.push(`YAML warning${at(w.line)}: ${w.message}`);
    data = parsed.value;
  }
  if (data === null || data === undefined)
    return { ok: true, value: { fields: {}, present: true, body, notes } };
  if (!isMapping(data)) return { ok: false, reason: 'unparsable frontmatter: expected a mapping of keys' };
  return { ok: true, value: { fields: data, present: true, body, notes } };
}
