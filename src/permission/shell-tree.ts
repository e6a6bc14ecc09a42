import type { Node } from '@vscode/tree-sitter-wasm';
import {
  checkArithmetic,
  checkSubscript,
  EXPRESSION_TYPES,
  resolveWord,
  type ShellWord,
  type WordFindings,
} from './shell-word.js';

export type { ShellWord } from './shell-word.js';

export interface ShellRedirect {
  op: string;
  fd?: string;
  target: ShellWord;
}

export interface SimpleCommand {
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
}

/** A bash source split into simple commands (SPEC 6.1); substitutions are sources of their own. */
export interface ParsedShell {
  commands: SimpleCommand[];
  /** `$(…)`, backticks and process substitutions, in the order they appear. */
  substitutions: ParsedShell[];
  /** Backtick bodies with escapes: bash unescapes them before parsing, so they are parsed again. */
  reparse: string[];
  /** What the walk could not follow; the analyser classes such commands as destructive. */
  problems: string[];
}

/** Nodes whose children are statements (or words, for loop lists and case patterns) run in order. */
const STRUCTURAL_TYPES = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'do_group',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'case_statement',
  'case_item',
  'ERROR',
]);
const WORD_TYPES = new Set([
  'word',
  'number',
  'string',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'arithmetic_expansion',
  'command_substitution',
  'process_substitution',
  'extglob_pattern',
  'brace_expression',
  'regex',
  'array',
]);
const COMMAND_TYPES = new Set(['command', 'declaration_command', 'unset_command']);
const REDIRECT_TYPES = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
/**
 * Reserved words tree-sitter-bash reads as plain command names when its grammar lacks the construct
 * (`coproc NAME { … }`) or after error recovery: bash would run something else.
 */
const RESERVED_WORDS = new Set([
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'case',
  'esac',
  'do',
  'done',
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'for',
  'while',
  'until',
  'select',
  'function',
  'in',
  'coproc',
]);
/** `[[ a -eq b ]]` evaluates both operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Deeper trees are refused rather than walked, so hostile input cannot exhaust the stack. */
const MAX_NESTING = 200;

/** Walks a tree-sitter-bash tree of `source` into simple commands (SPEC 6.1, 6.5). */
export function walkShell(root: Node, source: string): ParsedShell {
  const problems: string[] = [];
  if (root.hasError) problems.push(parseErrorOf(root));
  checkLineContinuations(root, source, problems);
  checkControlBytes(root, source, problems);
  checkUncoveredText(root, source, problems);
  return walkSource(root, problems, 0);
}

function walkSource(node: Node, problems: string[], nesting: number): ParsedShell {
  const walker = new Walker(problems, nesting);
  if (node.type === 'program') walker.statement(node);
  else for (const child of node.namedChildren) if (child) walker.statement(child);
  const substitutions: ParsedShell[] = [];
  const reparse: string[] = [];
  for (const sub of walker.findings.substitutions) {
    if (sub.child(0)?.type === '`' && sub.text.includes('\\')) reparse.push(unescapeBackticks(sub.text));
    else substitutions.push(walkSource(sub, [], walker.nesting + 1));
  }
  return { commands: walker.commands, substitutions, reparse, problems };
}

/** Inside backticks a backslash escapes `$`, backtick and backslash: `` `echo \`rm x\`` `` runs `rm x`. */
function unescapeBackticks(text: string): string {
  return text.slice(1, -1).replace(/\\([$`\\])/g, '$1');
}

class Walker {
  readonly commands: SimpleCommand[] = [];
  readonly findings: WordFindings;

  constructor(
    problems: string[],
    public nesting: number,
  ) {
    this.findings = { substitutions: [], problems };
  }

  statement(node: Node): void {
    if (this.nesting >= MAX_NESTING) {
      this.problem('nesting too deep to follow');
      return;
    }
    this.nesting++;
    try {
      this.dispatch(node);
    } finally {
      this.nesting--;
    }
  }

  private dispatch(node: Node): void {
    if (STRUCTURAL_TYPES.has(node.type)) {
      for (const child of node.namedChildren) if (child) this.statement(child);
      return;
    }
    if (COMMAND_TYPES.has(node.type)) {
      this.finish(this.command(node));
      return;
    }
    if (WORD_TYPES.has(node.type)) {
      resolveWord(node, this.findings);
      return;
    }
    switch (node.type) {
      case 'comment':
        return;
      case 'variable_assignment':
        this.finish({
          command: { assignments: [this.assignment(node)], words: [], redirects: [] },
          later: [],
        });
        return;
      case 'variable_assignments': {
        const assignments = node.namedChildren.flatMap((c) => (c ? [this.assignment(c)] : []));
        this.finish({ command: { assignments, words: [], redirects: [] }, later: [] });
        return;
      }
      case 'redirected_statement':
        this.redirected(node);
        return;
      case 'test_command':
        this.test(node);
        return;
      case 'for_statement':
        this.forLoop(node);
        return;
      case 'c_style_for_statement':
        for (const child of node.namedChildren) {
          if (!child) continue;
          if (child.type === 'do_group' || child.type === 'compound_statement') this.statement(child);
          else checkArithmetic(child, this.findings);
        }
        return;
      case 'function_definition':
        this.problem('function definitions are not followed');
        for (const body of node.childrenForFieldName('body')) if (body) this.statement(body);
        return;
      default:
        this.problem(`"${node.type}" is not followed`);
    }
  }

  private problem(text: string): void {
    this.findings.problems.push(text);
  }

  /** Records a command, then walks what its here-documents carry (after it: it may `cd`). */
  private finish({ command, later }: { command: SimpleCommand; later: Node[] }): void {
    this.commands.push(command);
    for (const node of later) this.statement(node);
  }

  private command(node: Node): { command: SimpleCommand; later: Node[] } {
    const command: SimpleCommand = { assignments: [], words: [], redirects: [] };
    const later: Node[] = [];
    if (node.type !== 'command') {
      // `export`, `local`, `unset`, …: tree-sitter gives them their own node; rules see plain words.
      const keyword = node.child(0);
      if (keyword) command.words.push(literal(keyword.text));
    }
    for (let index = 0; index < node.childCount; index++) {
      const child = node.child(index);
      if (!child || (node.type !== 'command' && index === 0)) continue;
      const field = node.fieldNameForChild(index);
      if (REDIRECT_TYPES.has(child.type)) this.redirect(child, command, later, false);
      else if (child.type === 'variable_assignment') {
        if (node.type === 'command') command.assignments.push(this.assignment(child));
        else command.words.push(this.assignment(child));
      } else if (field === 'name') command.words.push(this.commandName(child));
      else if (child.type === 'variable_name') command.words.push(literal(child.text));
      else if (field === 'argument' || WORD_TYPES.has(child.type)) {
        const word = resolveWord(child, this.findings);
        // tree-sitter splits some adjacent parts (`''\a`) that bash reads as one word: joined again.
        const previous = node.child(index - 1);
        if (
          previous &&
          previous.endIndex === child.startIndex &&
          command.words.length > 0 &&
          WORD_TYPES.has(previous.type)
        )
          command.words.push(joinWords(command.words.pop() as ShellWord, word));
        else command.words.push(word);
      } else if (child.type !== 'comment') this.problem(`"${child.text}" in a command is not followed`);
    }
    return { command, later };
  }

  private commandName(node: Node): ShellWord {
    const word = node.namedChild(0);
    if (!word) {
      this.problem('command without a name');
      return literal('');
    }
    if (word.type === 'word' && RESERVED_WORDS.has(word.text)) this.problem(`"${word.text}" is not followed`);
    return resolveWord(word, this.findings);
  }

  /** `NAME=value`, `NAME+=value`, `a[i]=value`, kept as one word with the value resolved. */
  private assignment(node: Node): ShellWord {
    const name = node.childForFieldName('name');
    const value = node.childForFieldName('value');
    if (name?.type === 'subscript') checkSubscript(name, this.findings);
    const operator = node.children.find((c) => c && !c.isNamed)?.text ?? '=';
    const resolved = value ? resolveWord(value, this.findings) : undefined;
    return {
      raw: node.text,
      value: `${name?.text ?? ''}${operator}${resolved?.value ?? ''}`,
      dynamic: resolved?.dynamic ?? false,
      glob: false,
      tilde: false,
    };
  }

  private redirected(node: Node): void {
    const body = node.childForFieldName('body');
    if (body && COMMAND_TYPES.has(body.type)) {
      const built = this.command(body);
      for (const redirect of node.childrenForFieldName('redirect'))
        if (redirect) this.redirect(redirect, built.command, built.later, false);
      this.finish(built);
      return;
    }
    // Redirections of a list, loop or group: recorded after its commands, so every `cd` in it counts.
    if (body) this.statement(body);
    const holder: SimpleCommand = { assignments: [], words: [], redirects: [] };
    const later: Node[] = [];
    for (const redirect of node.childrenForFieldName('redirect'))
      if (redirect) this.redirect(redirect, holder, later, true);
    this.finish({ command: holder, later });
  }

  private redirect(node: Node, command: SimpleCommand, later: Node[], holder: boolean): void {
    if (node.type === 'herestring_redirect') {
      for (const child of node.namedChildren) if (child) resolveWord(child, this.findings);
      return;
    }
    if (node.type === 'heredoc_redirect') {
      for (const child of node.namedChildren) {
        if (!child || child.type === 'heredoc_start' || child.type === 'heredoc_end') continue;
        if (child.type === 'heredoc_body') {
          // tree-sitter leaves backticks and some `<<-` bodies unparsed: an expanded body whose text
          // holds command text is not followed, whatever the parse found.
          if (expandedHeredoc(node) && /`|\$\(/.test(child.text))
            this.problem(`command substitution in the here-document "${child.text.slice(0, 40)}"`);
          for (const part of child.namedChildren) {
            if (part && part.type !== 'heredoc_content') resolveWord(part, this.findings);
          }
        } else if (REDIRECT_TYPES.has(child.type)) this.redirect(child, command, later, holder);
        else later.push(child);
      }
      return;
    }
    let op = '';
    let fd: string | undefined;
    const targets: ShellWord[] = [];
    for (let index = 0; index < node.childCount; index++) {
      const child = node.child(index);
      if (!child) continue;
      const field = node.fieldNameForChild(index);
      if (field === 'descriptor') fd = child.text;
      else if (field === 'destination') targets.push(resolveWord(child, this.findings));
      else if (!child.isNamed) op = child.text;
      else this.problem(`"${child.text}" in a redirection is not followed`);
    }
    const [target, ...extra] = targets;
    if (!target) {
      // `>&-` and `<&-` close a descriptor and name no file.
      if (!op.endsWith('-')) this.problem('redirection without a target');
      return;
    }
    // `echo x > a b`: bash passes `b` to echo; tree-sitter lists it as another destination.
    if (extra.length > 0 && holder)
      this.problem(`words after the redirection "${node.text}" are not followed`);
    command.words.push(...extra);
    command.redirects.push(fd === undefined ? { op, target } : { op, fd, target });
  }

  /** `[ … ]` and `[[ … ]]` become commands of their words; `(( … ))` is arithmetic. */
  private test(node: Node): void {
    const opener = node.child(0)?.type;
    if (opener === '((') {
      checkArithmetic(node, this.findings);
      return;
    }
    const words: ShellWord[] = [];
    this.testWords(node, opener === '[[', words);
    this.finish({ command: { assignments: [], words, redirects: [] }, later: [] });
  }

  private testWords(node: Node, doubleBracket: boolean, words: ShellWord[]): void {
    for (const child of node.children) {
      if (!child) continue;
      if (EXPRESSION_TYPES.has(child.type)) {
        const operator = child.childForFieldName('operator')?.text ?? '';
        if (doubleBracket && child.type === 'binary_expression' && ARITHMETIC_TESTS.has(operator)) {
          for (const side of ['left', 'right'])
            for (const operand of child.childrenForFieldName(side))
              if (operand) checkArithmetic(operand, this.findings);
        }
        this.testWords(child, doubleBracket, words);
      } else if (child.isNamed) words.push(resolveWord(child, this.findings));
      else {
        // Inside `[ … ]` bash reads `>` and `<` as redirections, not comparisons.
        if (!doubleBracket && /^[<>]/.test(child.type))
          this.problem(`"${child.type}" inside [ ] redirects in bash`);
        words.push(literal(child.text));
      }
    }
  }

  /** `for NAME in …` assigns NAME (possibly an environment variable) before each run of the body. */
  private forLoop(node: Node): void {
    const name = node.childForFieldName('variable')?.text ?? '';
    const values = node.childrenForFieldName('value').flatMap((v) => (v ? [v] : []));
    const assignments = (values.length > 0 ? values : [undefined]).map((value) => {
      const resolved = value ? resolveWord(value, this.findings) : literal('$@');
      return { ...resolved, raw: `${name}=${resolved.raw}`, value: `${name}=${resolved.value}` };
    });
    this.finish({ command: { assignments, words: [], redirects: [] }, later: [] });
    for (const body of node.childrenForFieldName('body')) if (body) this.statement(body);
  }
}

function joinWords(first: ShellWord, second: ShellWord): ShellWord {
  return {
    raw: first.raw + second.raw,
    value: first.value + second.value,
    dynamic: first.dynamic || second.dynamic,
    glob: first.glob || second.glob,
    tilde: first.tilde,
  };
}

/** `<<EOF` expands its body; `<<'EOF'`, `<<"EOF"` and `<<\EOF` do not. */
function expandedHeredoc(redirect: Node): boolean {
  const start = redirect.namedChildren.find((c) => c?.type === 'heredoc_start');
  return start !== undefined && start !== null && !/['"\\]/.test(start.text);
}

function literal(text: string): ShellWord {
  return { raw: text, value: text, dynamic: false, glob: false, tilde: false };
}

/** The first ERROR or MISSING node, described for the user. */
function parseErrorOf(root: Node): string {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) break;
    const at = `at ${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
    if (node.isMissing) return `parse error: missing "${node.type}" ${at}`;
    if (node.type === 'ERROR') return `parse error: unexpected "${node.text.slice(0, 40)}" ${at}`;
    for (let index = node.childCount - 1; index >= 0; index--) {
      const child = node.child(index);
      if (child?.hasError) stack.push(child);
    }
  }
  return 'parse error';
}

/** Literal text where a backslash-newline stays as written or is resolved by the word resolver. */
const LITERAL_TYPES = new Set(['raw_string', 'string_content', 'heredoc_body', 'heredoc_content', 'comment']);

/**
 * Text that no token of the tree covers but bash reads: tree-sitter skips an escaped blank at the start
 * of a word (`B \ x` passes " x" to B), so the reader would see other words than bash. Whitespace and
 * backslash-newlines between tokens are all that may be left over.
 */
function checkUncoveredText(root: Node, source: string, problems: string[]): void {
  let cursor = 0;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.childCount === 0 || LEAF_TEXT_TYPES.has(node.type)) {
      const gap = source.slice(cursor, node.startIndex);
      if (/\S/.test(gap.replace(/\\\n/g, ''))) {
        problems.push(`"${gap.trim().slice(0, 20)}" is not read as part of any word`);
        return;
      }
      cursor = Math.max(cursor, node.endIndex);
      continue;
    }
    for (let index = node.childCount - 1; index >= 0; index--) {
      const child = node.child(index);
      if (child) stack.push(child);
    }
  }
  if (/\S/.test(source.slice(cursor).replace(/\\\n/g, ''))) problems.push('text at the end is not read');
}

/** Nodes whose whole text is covered even where tree-sitter gives them parts with gaps between. */
const LEAF_TEXT_TYPES = new Set([
  'string',
  'raw_string',
  'ansi_c_string',
  'heredoc_body',
  'comment',
  'regex',
]);

/** Nodes whose text is quoted or inert, where a control byte is only data. */
const QUOTED_TYPES = new Set([
  'raw_string',
  'string',
  'string_content',
  'ansi_c_string',
  'heredoc_body',
  'heredoc_content',
  'comment',
]);

/**
 * A raw control byte (CR, VT, FF, NUL, ESC, …) outside quotes: bash and the parser may split words or
 * commands differently around it (CR is a word character to bash, a space to many readers), and a
 * terminal hides it from the user. Not followed.
 */
function checkControlBytes(root: Node, source: string, problems: string[]): void {
  for (const match of source.matchAll(/[\x00-\x08\x0b-\x1f\x7f]/g)) {
    const node = root.descendantForIndex(match.index, match.index + 1);
    let quoted = false;
    for (let at: Node | null = node; at; at = at.parent) {
      if (at.type === 'command_substitution' || at.type === 'process_substitution') break;
      if (QUOTED_TYPES.has(at.type)) {
        quoted = true;
        break;
      }
    }
    if (quoted) continue;
    const code = match[0].charCodeAt(0).toString(16).padStart(2, '0');
    problems.push(`control byte 0x${code} outside quotes`);
    return;
  }
}

/**
 * bash deletes a backslash-newline before splitting words, so `r\⏎m` is `rm`; tree-sitter-bash reads
 * it as a word break. Where it joins two words the parser and bash disagree: not followed.
 */
function checkLineContinuations(root: Node, source: string, problems: string[]): void {
  for (const match of source.matchAll(/(\\+)\n/g)) {
    if (match[1].length % 2 === 0) continue;
    const at = match.index + match[1].length - 1;
    const before = source[at - 1];
    const after = source[at + 2];
    if (before === undefined || after === undefined || /\s/.test(before) || /\s/.test(after)) continue;
    const node = root.descendantForIndex(at, at + 1);
    if (node && LITERAL_TYPES.has(node.type)) continue;
    problems.push('a backslash-newline joins two words');
    return;
  }
}
