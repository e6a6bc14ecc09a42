import type { Node } from '@vscode/tree-sitter-wasm';

export interface ShellWord {
  raw: string;
  /** Quotes removed, escapes resolved; expansions kept as written. */
  value: string;
  /** Contains a parameter, arithmetic or command expansion. */
  dynamic: boolean;
  /** Contains an unquoted glob or brace expansion. */
  glob: boolean;
  /** Starts with an unquoted `~`. */
  tilde: boolean;
}

/** What resolving words finds besides their text: code they run and what the resolver cannot follow. */
export interface WordFindings {
  /** `$(…)`, backtick and `<(…)`/`>(…)` nodes, walked later as commands of their own. */
  substitutions: Node[];
  problems: string[];
}

/** Expression nodes inside `$((…))`, `((…))` and `[[ … ]]` whose children carry the operands. */
export const EXPRESSION_TYPES = new Set([
  'binary_expression',
  'unary_expression',
  'parenthesized_expression',
  'postfix_expression',
  'ternary_expression',
]);
const SUBSTITUTION_TYPES = new Set(['command_substitution', 'process_substitution']);
const BRACE_EXPANSION = /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/;
/** Stands for quoted text in the unquoted skeleton of a word, so quoted braces are no brace expansion. */
const QUOTED = '\u0000';

interface Accumulator {
  value: string;
  skeleton: string;
  dynamic: boolean;
  glob: boolean;
}

/** Resolves one word node (a `word`, quoted string, concatenation, expansion, …) as bash would see it. */
export function resolveWord(node: Node, findings: WordFindings): ShellWord {
  const acc: Accumulator = { value: '', skeleton: '', dynamic: false, glob: false };
  appendPart(node, acc, findings);
  const first = node.type === 'concatenation' ? node.child(0) : node;
  const brace = BRACE_EXPANSION.test(acc.skeleton);
  // `{a,b}` and `{1..9}` become several words (a command name among them): not followed.
  if (brace) findings.problems.push(`brace expansion in "${node.text}" is not followed`);
  return {
    raw: node.text,
    value: acc.value,
    dynamic: acc.dynamic,
    glob: acc.glob || brace,
    tilde: first?.type === 'word' && first.text.startsWith('~'),
  };
}

function appendPart(node: Node, acc: Accumulator, findings: WordFindings): void {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'test_operator': {
      const text = node.text;
      if (hasUnescapedGlob(text)) acc.glob = true;
      acc.value += unescapeUnquoted(text);
      acc.skeleton += text.replace(/\\[\s\S]/g, QUOTED);
      return;
    }
    case 'raw_string':
      appendQuoted(acc, node.text.slice(1, -1));
      return;
    case 'ansi_c_string':
      // tree-sitter ends `$'a\\'` at the wrong quote; bash ends it at the first unescaped one.
      if (ansiCEnd(node.text) !== node.text.length - 1)
        findings.problems.push(`"${node.text.slice(0, 20)}" ends elsewhere in bash`);
      appendQuoted(acc, decodeAnsiC(node.text.slice(2, -1)));
      return;
    case 'translated_string':
      for (const child of node.namedChildren) if (child) appendPart(child, acc, findings);
      return;
    case 'string': {
      // Text between the parts is read from the source: tree-sitter leaves some bytes (a CR) out of
      // every part, and bash keeps them.
      const text = node.text;
      let cursor = 1;
      const gap = (end: number) => {
        if (end > cursor) appendQuoted(acc, unescapeDoubleQuoted(text.slice(cursor, end)));
      };
      for (const child of node.children) {
        if (!child || child.type === '"') continue;
        const start = child.startIndex - node.startIndex;
        if (child.type === 'string_content' || !child.isNamed) {
          gap(child.endIndex - node.startIndex);
        } else {
          gap(start);
          appendPart(child, acc, findings);
          acc.skeleton += QUOTED;
        }
        cursor = child.endIndex - node.startIndex;
      }
      gap(text.length - 1);
      return;
    }
    case 'concatenation':
      for (const child of node.children) if (child) appendPart(child, acc, findings);
      return;
    case 'simple_expansion':
    case 'expansion':
      scanNested(node, findings);
      appendDynamic(acc, node.text);
      return;
    case 'arithmetic_expansion':
      checkArithmetic(node, findings);
      appendDynamic(acc, node.text);
      return;
    case 'command_substitution':
    case 'process_substitution':
      findings.substitutions.push(node);
      appendDynamic(acc, node.text);
      return;
    case 'brace_expression':
      findings.problems.push(`brace expansion "${node.text}" is not followed`);
      acc.glob = true;
      acc.value += node.text;
      acc.skeleton += node.text;
      return;
    case 'extglob_pattern':
      acc.glob = true;
      acc.value += node.text;
      acc.skeleton += node.text;
      return;
    case 'regex':
      acc.value += node.text;
      acc.skeleton += QUOTED;
      return;
    case 'array':
      acc.value += `(${node.namedChildren.flatMap((c) => (c ? [resolveWord(c, findings).value] : [])).join(' ')})`;
      acc.skeleton += QUOTED;
      return;
    default:
      findings.problems.push(`"${node.text}" (${node.type}) is not followed`);
      appendDynamic(acc, node.text);
  }
}

function appendQuoted(acc: Accumulator, text: string): void {
  acc.value += text;
  acc.skeleton += QUOTED;
}

function appendDynamic(acc: Accumulator, text: string): void {
  acc.dynamic = true;
  acc.value += text;
  acc.skeleton += QUOTED;
}

/**
 * Finds the code inside `${…}` and other nested parts: substitutions are commands too; array subscripts
 * and substring offsets are evaluated as arithmetic, which runs substitutions hidden in variable values,
 * so a computed one is not followed.
 */
function scanNested(node: Node, findings: WordFindings): void {
  if (SUBSTITUTION_TYPES.has(node.type)) findings.substitutions.push(node);
  else if (node.type === 'subscript') checkSubscript(node, findings);
  else if (node.type === 'arithmetic_expansion') checkArithmetic(node, findings);
  else if (node.type === 'expansion') scanExpansion(node, findings);
  else for (const child of node.namedChildren) if (child) scanNested(child, findings);
}

/**
 * `${…}`: indirection (`${!name}`, `${!prefix*}`) and transformation (`${name@P}` expands prompt escapes,
 * which run `$(…)` held in the value) depend on values the analyser does not know; command text inside
 * (`${x:-$(cmd)}`) runs or not depending on them. None of these is followed (issue 15: fail closed).
 */
function scanExpansion(node: Node, findings: WordFindings): void {
  let substring = false;
  const children = node.children;
  if (children[1]?.type === '!' && !children[1].isNamed)
    findings.problems.push(`indirect expansion "${node.text}" is not followed`);
  if (children.some((c, i) => c && !c.isNamed && c.type === '@' && i > 1))
    findings.problems.push(`transformation "${node.text}" is not followed`);
  if (containsSubstitution(node) || /[`]|[$<>]\(/.test(unparsedText(node)))
    findings.problems.push(`command text inside the expansion "${node.text}" is not followed`);
  for (const child of children) {
    if (!child) continue;
    if (!child.isNamed) {
      substring ||= child.type === ':';
      continue;
    }
    scanNested(child, findings);
    if (substring && child.type !== 'number') {
      findings.problems.push(`substring offset in "${node.text}" is evaluated as arithmetic`);
      substring = false;
    }
  }
}

/** The text of an expansion's plain word children, where tree-sitter leaves backticks unparsed. */
function unparsedText(node: Node): string {
  return node.namedChildren
    .filter((c) => c?.type === 'word' || c?.type === 'string_content')
    .map((c) => c?.text ?? '')
    .join(' ');
}

function containsSubstitution(node: Node): boolean {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (SUBSTITUTION_TYPES.has(child.type) || containsSubstitution(child)) return true;
  }
  return false;
}

/** `a[i]`: an index other than a literal number, `@` or `*` is evaluated as arithmetic. */
export function checkSubscript(node: Node, findings: WordFindings): void {
  const index = node.childForFieldName('index');
  if (!index || /^([0-9]+|@|\*)$/.test(index.text)) return;
  if (!arithmeticUnderstood(index, findings))
    findings.problems.push(`array subscript in "${node.text}" is evaluated as arithmetic`);
}

/**
 * Arithmetic evaluates the values of the names it mentions as arithmetic again, and array subscripts
 * there run command substitutions: only arithmetic on literal numbers is understood.
 */
export function checkArithmetic(node: Node, findings: WordFindings): void {
  if (!arithmeticUnderstood(node, findings))
    findings.problems.push(`arithmetic "${node.text}" with names or substitutions`);
}

function arithmeticUnderstood(node: Node, findings: WordFindings): boolean {
  if (node.type === 'number') return true;
  if (
    node.type === 'arithmetic_expansion' ||
    node.type === 'test_command' ||
    EXPRESSION_TYPES.has(node.type)
  ) {
    let understood = true;
    for (const child of node.namedChildren) {
      if (child && !arithmeticUnderstood(child, findings)) understood = false;
    }
    return understood;
  }
  scanNested(node, findings);
  return false;
}

function hasUnescapedGlob(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

/** Outside quotes a backslash quotes the next character and a backslash-newline disappears. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|.)?/gs, (_match, next: string | undefined) =>
    next === '\n' ? '' : (next ?? ''),
  );
}

/** Inside double quotes a backslash only escapes `$`, backtick, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, next: string) => (next === '\n' ? '' : next));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
};

/** The index of the quote that closes `$'…'` in bash: a backslash escapes any character. */
function ansiCEnd(text: string): number {
  for (let i = 2; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === "'") return i;
  }
  return -1;
}

/** `$'…'` with its escapes decoded, so `$'\x72m'` is seen as `rm`. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)?/gs,
    (_match, seq: string | undefined) => decodeEscape(seq ?? ''),
  );
}

function decodeEscape(seq: string): string {
  if (seq === '') return '\\';
  const head = seq[0];
  if (head === 'x' || head === 'u' || head === 'U')
    return String.fromCodePoint(Number.parseInt(seq.slice(1), 16));
  if (/^[0-7]/.test(seq)) return String.fromCharCode(Number.parseInt(seq, 8));
  if (head === 'c') return String.fromCharCode(seq.charCodeAt(1) & 31);
  return SIMPLE_ESCAPES[seq] ?? seq;
}
