/**
 * A fast path for the plainest frontmatter: `key: scalar`, `key: [a, "b"]`, and one level of nested
 * `key:` blocks of the same. It answers only when the text is entirely within that subset, with exactly
 * what the `yaml` package (YAML 1.2 core schema) would return; anything else — comments, anchors, tags,
 * block lists, multi-line or escaped strings, repeated keys, unusual numbers — returns undefined and goes
 * to the real parser. Loading a thousand profiles is dominated by YAML parsing (SPEC 18).
 */

type Scalar = string | number | boolean | null;
type Value = Scalar | Scalar[] | Record<string, Scalar | Scalar[]>;

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*?))? *$/;
const NESTED_LINE = /^( +)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*?))? *$/;
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

function value(text: string): Scalar | Scalar[] | undefined {
  if (text.startsWith('[')) return text.endsWith(']') ? flowSequence(text) : undefined;
  return scalar(text, false);
}

/** The mapping the frontmatter denotes, or undefined when the real YAML parser must decide. */
export function parseSimpleYaml(text: string): Record<string, Value> | undefined {
  if (text.includes('#') || text.includes('\t') || text.includes('\r')) return undefined;
  const result: Record<string, Value> = {};
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    i++;
    if (line.trim() === '') continue;
    const match = KEY_LINE.exec(line);
    if (!match || !plainKey(match[1]) || Object.hasOwn(result, match[1])) return undefined;
    const [, key, raw] = match;
    if (raw !== undefined && raw !== '') {
      const parsed = value(raw);
      if (parsed === undefined) return undefined;
      result[key] = parsed;
      continue;
    }
    const nested: Record<string, Scalar | Scalar[]> = {};
    let indent: string | undefined;
    while (i < lines.length && (lines[i].startsWith(' ') || lines[i].trim() === '')) {
      const inner = lines[i];
      i++;
      if (inner.trim() === '') continue;
      const nestedMatch = NESTED_LINE.exec(inner);
      if (!nestedMatch) return undefined;
      const [, spaces, nestedKey, nestedRaw] = nestedMatch;
      indent ??= spaces;
      if (spaces !== indent || !plainKey(nestedKey) || Object.hasOwn(nested, nestedKey)) return undefined;
      if (nestedRaw === undefined || nestedRaw === '') return undefined;
      const parsed = value(nestedRaw);
      if (parsed === undefined) return undefined;
      nested[nestedKey] = parsed;
    }
    result[key] = indent === undefined ? null : nested;
  }
  return result;
}
