/**
 * A fast path for frontmatter as people write it: `key: scalar` and `key: [a, "b"]`, nested `key:` blocks,
 * block lists, `|` and `>` block scalars, comments, anchors and their aliases. It answers only when the
 * text is entirely within that subset, with exactly what the `yaml` package (YAML 1.2 core schema) would
 * return; anything else — tags, flow mappings, multi-line or escaped strings, repeated keys, unusual
 * numbers, more-indented folded lines — returns undefined and goes to the real parser. Measured (issue 17):
 * the `yaml` package alone takes longer than the whole 200-profile budget, so the fast path is needed; the
 * property test in test/profile/simple-yaml.test.ts shows both agree.
 */

type Scalar = string | number | boolean | null;
export type Value = Scalar | Value[] | { [key: string]: Value };

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ANCHOR = /^&([A-Za-z0-9_-]+)(?: +(.*))?$/;
const ALIAS = /^\*([A-Za-z0-9_-]+)(?: +#.*)?$/;
const BLOCK_HEADER = /^([|>])(-?)(?: +#.*)?$/;
/** Plain scalars that are certainly strings or one of the typed words below; no YAML indicator inside. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_ .,/()*+=@-]*$/;
const PLAIN_IN_FLOW = /^[A-Za-z_][A-Za-z0-9_ ./()*+=@-]*$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;
const TYPED_WORDS: Readonly<Record<string, Scalar>> = {
  true: true,
  True: true,
  TRUE: true,
  false: false,
  False: false,
  FALSE: false,
  null: null,
  Null: null,
  NULL: null,
};
/** yaml refuses an alias used more often than this (its `maxAliasCount`, as parseYamlText sets it). */
const MAX_ALIAS_USES = 100;

/** Thrown inside the parser when the text leaves the subset; never escapes parseSimpleYaml. */
class Outside extends Error {}

function outside(): never {
  throw new Outside();
}

/** Keys the fast path leaves to the real parser: typed words become non-string keys, `__proto__` is special. */
function plainKey(key: string): boolean {
  return !Object.hasOwn(TYPED_WORDS, key) && key !== '__proto__';
}

/** One scalar token, or undefined when it is outside the subset. */
function scalar(token: string, inFlow: boolean): Scalar | undefined {
  if (token.length >= 2 && token.startsWith('"') && token.endsWith('"')) {
    const inner = token.slice(1, -1);
    return inner.includes('"') || inner.includes('\\') ? undefined : inner;
  }
  if (token.length >= 2 && token.startsWith("'") && token.endsWith("'")) {
    const inner = token.slice(1, -1);
    return inner.includes("'") ? undefined : inner;
  }
  if (DECIMAL.test(token)) return Number(token);
  if (!(inFlow ? PLAIN_IN_FLOW : PLAIN).test(token)) return undefined;
  if (token.includes('  ')) return undefined;
  return Object.hasOwn(TYPED_WORDS, token) ? TYPED_WORDS[token] : token;
}

/** `[a, "b", 'c']` on one line; no nesting, no empty items. */
function flowSequence(text: string): Scalar[] | undefined {
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: Scalar[] = [];
  let rest = inner;
  while (rest !== '') {
    let token: string;
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      const end = rest.indexOf(quote, 1);
      if (end < 0) return undefined;
      token = rest.slice(0, end + 1);
      rest = rest.slice(end + 1).trimStart();
    } else {
      const comma = rest.indexOf(',');
      token = (comma < 0 ? rest : rest.slice(0, comma)).trimEnd();
      rest = comma < 0 ? '' : rest.slice(comma);
    }
    const value = scalar(token, true);
    if (value === undefined) return undefined;
    items.push(value);
    if (rest === '') break;
    if (!rest.startsWith(',')) return undefined;
    rest = rest.slice(1).trimStart();
    if (rest === '') return undefined;
  }
  return items;
}

/** The value text without a trailing `# comment`; a `#` anywhere else is outside the subset. */
function withoutComment(text: string): string {
  if (text.startsWith('#')) return '';
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    const end = text.indexOf(quote, 1);
    if (end < 0) outside();
    const after = text.slice(end + 1);
    if (after.trim() !== '' && !/^ +#/.test(after)) outside();
    return text.slice(0, end + 1);
  }
  const at = text.indexOf(' #');
  const kept = at < 0 ? text : text.slice(0, at).trimEnd();
  if (kept.includes('#')) outside();
  return kept;
}

function inlineValue(text: string): Scalar | Scalar[] {
  const flow = text.startsWith('[');
  const value = flow ? (text.endsWith(']') ? flowSequence(text) : undefined) : scalar(text, false);
  if (value === undefined) outside();
  return value;
}

function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 32) n++;
  return n;
}

class Reader {
  private i = 0;
  private readonly anchors = new Map<string, { value: Value; uses: number }>();
  private aliasUses = 0;

  constructor(private readonly lines: string[]) {}

  /** Past blank and comment lines; the index of the next content line, or undefined at the end. */
  private nextContent(): number | undefined {
    while (this.i < this.lines.length) {
      const trimmed = this.lines[this.i].trimStart();
      if (trimmed !== '' && !trimmed.startsWith('#')) return this.i;
      this.i++;
    }
    return undefined;
  }

  document(): Record<string, Value> {
    const at = this.nextContent();
    if (at === undefined) return {};
    if (indentOf(this.lines[at]) !== 0) outside();
    const result = this.mapping(0);
    if (this.nextContent() !== undefined) outside();
    return result;
  }

  private mapping(indent: number): Record<string, Value> {
    const result: Record<string, Value> = {};
    for (let at = this.nextContent(); at !== undefined; at = this.nextContent()) {
      const line = this.lines[at];
      const lineIndent = indentOf(line);
      if (lineIndent < indent) break;
      if (lineIndent > indent) outside();
      const match = KEY_LINE.exec(line.slice(indent));
      if (!match || !plainKey(match[1]) || Object.hasOwn(result, match[1])) outside();
      this.i++;
      result[match[1]] = this.value((match[2] ?? '').trimEnd(), indent, true);
    }
    return result;
  }

  /** A block list whose `- ` items sit at `indent`: scalars, flow lists and aliases. */
  private sequence(indent: number): Value[] {
    const items: Value[] = [];
    for (let at = this.nextContent(); at !== undefined; at = this.nextContent()) {
      const line = this.lines[at];
      const lineIndent = indentOf(line);
      if (lineIndent < indent || !line.startsWith('- ', indent)) break;
      if (lineIndent > indent) outside();
      this.i++;
      items.push(this.value(line.slice(indent + 2).trim(), indent, false));
    }
    return items;
  }

  /** The value after `key:` (or `- `) at `indent`; `nested` allows a block below it. */
  private value(text: string, indent: number, nested: boolean): Value {
    const anchored = ANCHOR.exec(text);
    const rest = anchored ? (anchored[2] ?? '') : text;
    if (rest.startsWith('*')) {
      if (anchored) outside();
      return this.alias(rest);
    }
    const usesBefore = this.aliasUses;
    let value: Value;
    const header = BLOCK_HEADER.exec(rest);
    if (header) {
      if (!nested) outside();
      value = this.blockScalar(indent, header[1] === '>', header[2] === '-');
    } else {
      const inline = withoutComment(rest);
      value = inline === '' ? this.block(indent, nested) : inlineValue(inline);
    }
    if (anchored) {
      // An anchored node holding aliases makes yaml's expansion count non-trivial: left to yaml.
      if (value === null || this.aliasUses !== usesBefore) outside();
      this.anchors.set(anchored[1], { value, uses: 0 });
    }
    return value;
  }

  private alias(text: string): Value {
    const match = ALIAS.exec(text);
    const anchor = match && this.anchors.get(match[1]);
    if (!anchor) outside();
    anchor.uses++;
    this.aliasUses++;
    if (anchor.uses > MAX_ALIAS_USES) outside();
    return anchor.value;
  }

  /** What an empty `key:` holds: a mapping or list indented below it, a list at its own indent, or null. */
  private block(indent: number, nested: boolean): Value {
    if (!nested) outside();
    const at = this.nextContent();
    if (at === undefined) return null;
    const line = this.lines[at];
    const lineIndent = indentOf(line);
    const isItem = line.startsWith('- ', lineIndent);
    if (lineIndent > indent) return isItem ? this.sequence(lineIndent) : this.mapping(lineIndent);
    return lineIndent === indent && isItem ? this.sequence(indent) : null;
  }

  /** A `|` or `>` scalar, clipped or (`-`) stripped; indentation indicators and `+` are left to yaml. */
  private blockScalar(indent: number, folded: boolean, strip: boolean): string {
    const first = this.lines[this.i];
    if (first === undefined || first === '') outside();
    const contentIndent = indentOf(first);
    if (contentIndent <= indent) outside();
    const parts: string[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line === '') {
        parts.push('');
        this.i++;
        continue;
      }
      const lineIndent = indentOf(line);
      if (lineIndent === line.length) outside();
      if (lineIndent < contentIndent) break;
      const content = line.slice(contentIndent);
      if (folded && (content.startsWith(' ') || content.endsWith(' '))) outside();
      parts.push(content);
      this.i++;
    }
    while (parts[parts.length - 1] === '') parts.pop();
    let text = '';
    let blanks = 0;
    for (const [n, part] of parts.entries()) {
      if (part === '') {
        blanks++;
        if (!folded) text += '\n';
        continue;
      }
      if (n > 0) text += folded ? (blanks === 0 ? ' ' : '\n'.repeat(blanks)) : '\n';
      text += part;
      blanks = 0;
    }
    return strip ? text : `${text}\n`;
  }
}

/** The mapping the frontmatter denotes, or undefined when the real YAML parser must decide. */
export function parseSimpleYaml(text: string): Record<string, Value> | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  try {
    return new Reader(text.split('\n')).document();
  } catch (error) {
    if (error instanceof Outside) return undefined;
    throw error;
  }
}
