/**
 * Splits a bash command into simple commands with quoting resolved.
 *
 * sh-syntax (mvdan/sh) is the authority on whether the command is valid bash, but its JSON AST only
 * carries statement, redirect and word positions, not command nodes; this lexer recovers the command
 * structure for input the parser has accepted. Every construct it does not fully follow is reported
 * as a problem, and the analyser classes such commands as destructive.
 */

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

export interface ShellRedirect {
  op: string;
  fd?: string;
  target: ShellWord;
  heredoc?: { body: string; quoted: boolean };
}

export interface SimpleCommand {
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
}

export interface LexedCommand {
  commands: SimpleCommand[];
  /** Sources of `$(…)`, backticks and process substitutions, analysed recursively. */
  substitutions: string[];
  problems: string[];
}

const CONTROL_KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '{',
  '}',
  '!',
]);
const UNSUPPORTED_KEYWORDS = new Set(['case', 'esac', 'function', 'coproc', 'select', '[[', ']]', 'in']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const OPERATORS = ['&&', '||', ';;', ';&', '|&', '&>>', '&>', ';', '&', '|', '(', ')', '\n'];
const REDIRECT_OPS = ['<<<', '<<-', '<<', '<>', '<&', '>>', '>|', '>&', '<', '>'];

type Token =
  | { kind: 'word'; word: ShellWord }
  | { kind: 'op'; op: string }
  | { kind: 'redirect'; redirect: ShellRedirect };

export function lexShell(source: string): LexedCommand {
  const lexer = new Lexer(source);
  const tokens = lexer.tokens();
  const commands = groupCommands(tokens, lexer.problems);
  return { commands, substitutions: lexer.substitutions, problems: lexer.problems };
}

function groupCommands(tokens: Token[], problems: string[]): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { assignments: [], words: [], redirects: [] };
  let skippingLoopHeader = false;
  const flush = () => {
    if (current.words.length + current.assignments.length + current.redirects.length > 0)
      commands.push(current);
    current = { assignments: [], words: [], redirects: [] };
  };
  for (const [index, token] of tokens.entries()) {
    if (token.kind === 'op') {
      if (token.op === '(' && current.words.length > 0)
        problems.push('function definitions are not followed');
      if (
        token.op === '(' &&
        tokens[index + 1]?.kind === 'op' &&
        (tokens[index + 1] as { op: string }).op === '('
      ) {
        problems.push('arithmetic commands are not followed');
      }
      if (token.op === ';;' || token.op === ';&') problems.push('case statements are not followed');
      skippingLoopHeader = false;
      flush();
      continue;
    }
    if (token.kind === 'redirect') {
      current.redirects.push(token.redirect);
      continue;
    }
    const { word } = token;
    if (skippingLoopHeader) {
      if (word.raw === 'do') skippingLoopHeader = false;
      continue;
    }
    const atCommandStart = current.words.length === 0 && current.assignments.length === 0;
    if (atCommandStart && CONTROL_KEYWORDS.has(word.raw)) {
      flush();
      continue;
    }
    if (atCommandStart && word.raw === 'for') {
      skippingLoopHeader = true;
      continue;
    }
    if (atCommandStart && UNSUPPORTED_KEYWORDS.has(word.raw)) problems.push(`"${word.raw}" is not followed`);
    if (current.words.length === 0 && ASSIGNMENT.test(word.raw)) current.assignments.push(word);
    else current.words.push(word);
  }
  flush();
  return commands;
}

class Lexer {
  readonly substitutions: string[] = [];
  readonly problems: string[] = [];
  private i = 0;
  private pendingHeredocs: ShellRedirect[] = [];

  constructor(private readonly s: string) {}

  tokens(): Token[] {
    const out: Token[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.i >= this.s.length) break;
      const c = this.s[this.i];
      if (c === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
        continue;
      }
      if (c === '\n') {
        this.i++;
        out.push({ kind: 'op', op: '\n' });
        this.readHeredocBodies();
        continue;
      }
      const redirect = this.tryRedirect();
      if (redirect) {
        out.push({ kind: 'redirect', redirect });
        continue;
      }
      if ((c === '<' || c === '>') && this.s[this.i + 1] === '(') {
        out.push({ kind: 'word', word: this.readWord() });
        continue;
      }
      const op = OPERATORS.find((o) => this.s.startsWith(o, this.i));
      if (op) {
        this.i += op.length;
        if (op === '&>' || op === '&>>') {
          out.push({ kind: 'redirect', redirect: { op, target: this.readTarget() } });
          continue;
        }
        out.push({ kind: 'op', op });
        continue;
      }
      const word = this.readWord();
      if (word.raw === '') {
        this.problems.push(`unexpected character "${c}"`);
        this.i++;
        continue;
      }
      out.push({ kind: 'word', word });
    }
    if (this.pendingHeredocs.length > 0) this.problems.push('here-document without a body');
    return out;
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t') this.i++;
      else if (c === '\\' && this.s[this.i + 1] === '\n') this.i += 2;
      else return;
    }
  }

  /** A redirection, with an optional fd number or `{var}` right before the operator. */
  private tryRedirect(): ShellRedirect | undefined {
    const fdMatch = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])/.exec(this.s.slice(this.i, this.i + 40));
    const at = this.i + (fdMatch ? fdMatch[0].length : 0);
    const op = REDIRECT_OPS.find((o) => this.s.startsWith(o, at));
    if (!op || this.s[at + op.length] === '(') return undefined;
    this.i = at + op.length;
    const redirect: ShellRedirect = { op, target: this.readTarget() };
    if (fdMatch) redirect.fd = fdMatch[0];
    if (op === '<<' || op === '<<-') this.pendingHeredocs.push(redirect);
    return redirect;
  }

  private readTarget(): ShellWord {
    this.skipBlanks();
    const word = this.readWord();
    if (word.raw === '') this.problems.push('redirection without a target');
    return word;
  }

  private readHeredocBodies(): void {
    for (const redirect of this.pendingHeredocs) {
      const quoted = /['"\\]/.test(redirect.target.raw);
      const delimiter = redirect.target.value;
      const lines: string[] = [];
      let closed = false;
      while (this.i < this.s.length) {
        const end = this.s.indexOf('\n', this.i);
        const line = this.s.slice(this.i, end === -1 ? this.s.length : end);
        this.i = end === -1 ? this.s.length : end + 1;
        const compared = redirect.op === '<<-' ? line.replace(/^\t+/, '') : line;
        if (compared === delimiter) {
          closed = true;
          break;
        }
        lines.push(line);
      }
      const body = lines.join('\n');
      if (!closed) this.problems.push(`here-document "${delimiter}" is not terminated`);
      if (!quoted && /\$[({]|`/.test(body))
        this.problems.push('here-document expands commands or parameters');
      redirect.heredoc = { body, quoted };
    }
    this.pendingHeredocs = [];
  }

  private readWord(): ShellWord {
    const start = this.i;
    const word: ShellWord = { raw: '', value: '', dynamic: false, glob: false, tilde: false };
    if (this.s[this.i] === '~') word.tilde = true;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      const next = this.s[this.i + 1];
      if (' \t\n;&|()'.includes(c)) break;
      if ((c === '<' || c === '>') && next === '(') {
        const at = this.i;
        this.i++;
        this.readSubstitution(')', '(');
        word.dynamic = true;
        word.value += this.s.slice(at, this.i);
        continue;
      }
      if (c === '<' || c === '>') break;
      if (c === '\\') {
        if (next === '\n') this.i += 2;
        else {
          if (next !== undefined) word.value += next;
          this.i += 2;
        }
        continue;
      }
      if (c === "'") {
        const end = this.s.indexOf("'", this.i + 1);
        if (end === -1) {
          this.problems.push('unterminated single quote');
          this.i = this.s.length;
          break;
        }
        word.value += this.s.slice(this.i + 1, end);
        this.i = end + 1;
        continue;
      }
      if (c === '"') {
        this.i++;
        this.readDoubleQuoted(word);
        continue;
      }
      if (c === '$') {
        this.readDollar(word, false);
        continue;
      }
      if (c === '`') {
        this.readBacktick(word);
        continue;
      }
      if ('*?[@!+'.includes(c) && next === '(') {
        this.i++;
        word.value += c + this.readBalanced('(', ')');
        word.glob = true;
        continue;
      }
      if (c === '*' || c === '?' || c === '[') word.glob = true;
      if (c === '{' && /^\{[^{}\s]*(,|\.\.)[^{}\s]*\}/.test(this.s.slice(this.i))) word.glob = true;
      word.value += c;
      this.i++;
    }
    word.raw = this.s.slice(start, this.i);
    return word;
  }

  private readDoubleQuoted(word: ShellWord): void {
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\') {
        const next = this.s[this.i + 1];
        if (next === '\n') this.i += 2;
        else if (next !== undefined && '$`"\\'.includes(next)) {
          word.value += next;
          this.i += 2;
        } else {
          word.value += c;
          this.i++;
        }
        continue;
      }
      if (c === '$') {
        this.readDollar(word, true);
        continue;
      }
      if (c === '`') {
        this.readBacktick(word);
        continue;
      }
      word.value += c;
      this.i++;
    }
    this.problems.push('unterminated double quote');
  }

  private readDollar(word: ShellWord, inDoubleQuotes: boolean): void {
    const start = this.i;
    const next = this.s[this.i + 1];
    if (next === "'" && !inDoubleQuotes) {
      this.i += 2;
      word.value += this.readAnsiC();
      return;
    }
    if (next === '"' && !inDoubleQuotes) {
      this.i += 2;
      this.readDoubleQuoted(word);
      return;
    }
    if (next === '(' && this.s[this.i + 2] === '(') {
      this.i += 2;
      const inner = this.readBalanced('(', ')');
      if (/[A-Za-z_$`[]/.test(inner)) this.problems.push('arithmetic expansion with names or substitutions');
      word.dynamic = true;
      word.value += this.s.slice(start, this.i);
      return;
    }
    if (next === '(') {
      this.i++;
      this.readSubstitution(')', '(');
      word.dynamic = true;
      word.value += this.s.slice(start, this.i);
      return;
    }
    if (next === '{') {
      this.i++;
      const inner = this.readBalanced('{', '}');
      if (/\$\(|`|[<>]\(/.test(inner)) this.problems.push('parameter expansion containing a substitution');
      word.dynamic = true;
      word.value += this.s.slice(start, this.i);
      return;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.s.slice(this.i + 1, this.i + 200));
    if (name) {
      this.i += 1 + name[0].length;
      word.dynamic = true;
      word.value += this.s.slice(start, this.i);
      return;
    }
    word.value += '$';
    this.i++;
  }

  private readBacktick(word: ShellWord): void {
    this.i++;
    let inner = '';
    while (this.i < this.s.length && this.s[this.i] !== '`') {
      if (this.s[this.i] === '\\' && '$`\\'.includes(this.s[this.i + 1] ?? '')) {
        inner += this.s[this.i + 1];
        this.i += 2;
      } else {
        inner += this.s[this.i];
        this.i++;
      }
    }
    if (this.i >= this.s.length) this.problems.push('unterminated backtick');
    this.i++;
    this.substitutions.push(inner);
    word.dynamic = true;
    word.value += `\`${inner}\``;
  }

  /** Reads `(…)` for a command/process substitution and records its source. `this.i` is at the `(`. */
  private readSubstitution(close: string, open: string): void {
    const inner = this.readBalanced(open, close);
    this.substitutions.push(inner.slice(1, -1));
  }

  /** Reads a balanced region starting at `open` (at this.i); returns it including the delimiters. */
  private readBalanced(open: string, close: string): string {
    const start = this.i;
    let depth = 0;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (c === "'") {
        const end = this.s.indexOf("'", this.i + 1);
        this.i = end === -1 ? this.s.length : end + 1;
        continue;
      }
      if (c === '"') {
        this.i = this.skipDoubleQuoted(this.i + 1);
        continue;
      }
      if (c === '`') {
        const end = this.s.indexOf('`', this.i + 1);
        this.i = end === -1 ? this.s.length : end + 1;
        continue;
      }
      if (c === open) depth++;
      if (c === close) {
        depth--;
        if (depth === 0) {
          this.i++;
          return this.s.slice(start, this.i);
        }
      }
      this.i++;
    }
    this.problems.push(`unbalanced "${open}"`);
    return this.s.slice(start, this.i);
  }

  private skipDoubleQuoted(from: number): number {
    let i = from;
    while (i < this.s.length && this.s[i] !== '"') i += this.s[i] === '\\' ? 2 : 1;
    return i + 1;
  }

  /** `$'…'` with its escapes decoded, so `$'\x72m'` is seen as `rm`. `this.i` is after the quote. */
  private readAnsiC(): string {
    let out = '';
    while (this.i < this.s.length && this.s[this.i] !== "'") {
      const c = this.s[this.i];
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const rest = this.s.slice(this.i + 1);
      const escapeMatch = /^(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/s.exec(
        rest,
      );
      const seq = escapeMatch ? escapeMatch[0] : '';
      out += decodeEscape(seq);
      this.i += 1 + seq.length;
    }
    if (this.i >= this.s.length) this.problems.push("unterminated $'…' quote");
    this.i++;
    return out;
  }
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

function decodeEscape(seq: string): string {
  if (seq === '') return '\\';
  const head = seq[0];
  if (head === 'x' || head === 'u' || head === 'U')
    return String.fromCodePoint(Number.parseInt(seq.slice(1), 16));
  if (/^[0-7]/.test(seq)) return String.fromCharCode(Number.parseInt(seq, 8));
  if (head === 'c') return String.fromCharCode(seq.charCodeAt(1) & 31);
  return SIMPLE_ESCAPES[seq] ?? seq;
}
