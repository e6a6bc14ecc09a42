import { parseYamlText } from '../util/yaml-text.js';
import { recoverFrontmatterLines } from './frontmatter-recovery.js';
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
const LENIENT_OPENING = /^\uFEFF?(?:[ \t]*\r?\n)*([ \t]*)---[ \t]*\r?\n/;
const LENIENT_CLOSING = /^[ \t]*---[ \t]*$/m;
const CLOSING = /^---[ \t]*$/m;

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Splits `---` YAML frontmatter from a markdown body; a file without it is body-only (SPEC 3.2).
 * `lenient` (imported files): frontmatter that is not strict YAML but loads in Claude Code is read line by
 * line, with a note; blank lines before the opening `---` and a block indented as a whole are allowed.
 */
export function parseFrontmatter(text: string, lenient = false): FrontmatterResult {
  const opening = (lenient ? LENIENT_OPENING : OPENING).exec(text);
  if (!opening)
    return {
      ok: true,
      value: { fields: {}, present: false, body: text.replace(/^\uFEFF/, '').trim(), notes: [] },
    };
  const indent = opening[1] ?? '';
  const dedent = (part: string) =>
    indent === ''
      ? part
      : part.replace(/^[ \t]+/gm, (lead) => lead.slice(Math.min(lead.length, indent.length)));
  const rest = text.slice(opening[0].length);
  const closing = (lenient ? LENIENT_CLOSING : CLOSING).exec(rest);
  if (!closing) return { ok: false, reason: 'unterminated frontmatter: no closing "---" line' };
  const yamlText = dedent(rest.slice(0, closing.index));
  const body = dedent(rest.slice(closing.index + closing[0].length)).trim();
  // The YAML starts on the file's second line.
  const at = (line: number | undefined) => (line === undefined ? '' : ` at line ${line + 1}`);
  let data: unknown = parseSimpleYaml(yamlText);
  const notes: string[] = [];
  if (data === undefined) {
    const parsed = parseYamlText(yamlText);
    const recovered = !parsed.ok && lenient ? recoverFrontmatterLines(yamlText) : undefined;
    if (!parsed.ok && !recovered)
      return { ok: false, reason: `unparsable frontmatter${at(parsed.line)}: ${parsed.message}` };
    if (parsed.ok) {
      for (const w of parsed.warnings) notes.push(`YAML warning${at(w.line)}: ${w.message}`);
      data = parsed.value;
    } else {
      notes.push(`frontmatter is not strict YAML${at(parsed.line)} (${parsed.message}); read line by line`);
      data = recovered;
    }
  }
  if (data === null || data === undefined)
    return { ok: true, value: { fields: {}, present: true, body, notes } };
  if (!isMapping(data)) return { ok: false, reason: 'unparsable frontmatter: expected a mapping of keys' };
  return { ok: true, value: { fields: data, present: true, body, notes } };
}
