import { SAFETY_ORDER, type SafetyClass } from '../tool/tool.js';
import { basename, classifyCommand, unwrapCommand, writeOperands } from './bash-classify.js';
import type { CommandClass } from './command-class.js';
import { executingAssignment } from './exec-classify.js';
import { absolutePath, isInside, realPath } from './paths.js';
import { loadShellParser, type WithShellTree } from './shell-parser.js';
import {
  type ParsedShell,
  type ShellRedirect,
  type ShellWord,
  type SimpleCommand,
  walkShell,
} from './shell-tree.js';

/** One simple command as rules see it (SPEC 6.1). */
export interface BashCommand {
  /** Assignments and words with quoting resolved, joined by single spaces: what `bash(…)` patterns match. */
  text: string;
  words: string[];
  assignments: string[];
  /** Wrappers this command runs through, outermost first (`sudo`, `env`, `sh`, …). */
  wrappers: string[];
  /**
   * A form derived from another command (the command a wrapper runs, the basename of `/bin/rm`, the
   * command without its assignments). Derived forms can be denied or asked by rules, never allowed:
   * allowing the outer form needs a rule written for that exact form.
   */
  derived: boolean;
  safety: SafetyClass;
  why: string;
  /** Why it runs code the analyser cannot see (see CommandClass.opaque). */
  opaque?: string;
}

/**
 * A file the command touches outside what its class says: an output redirection or a written operand
 * (checked as a `write`, SPEC 6.1), or a file read outside the project (checked as a `read`, SPEC 5).
 */
export interface BashRedirect {
  kind: 'read' | 'write';
  op: string;
  target: string;
  /** Real paths the target may denote (one per working directory the command may have `cd`ed to). */
  paths: string[];
  truncates: boolean;
  outsideProject: boolean;
}

export interface BashAnalysis {
  command: string;
  commands: BashCommand[];
  redirects: BashRedirect[];
  /** The most severe part's class; destructive whenever there are problems. */
  safety: SafetyClass;
  why: string;
  /** What the analyser could not follow; any problem makes the command destructive and opaque to allows. */
  problems: string[];
  /** Why it runs code the analyser cannot see: only a rule, never a default or --yes, approves it. */
  opaque?: string;
}

interface Syntax {
  commands: BashCommand[];
  /**
   * `written` entries come from a command's operands (`tee f`), `read` entries from a reading command's
   * operands (`cat f`): both are only checked when outside the project; `computed` ones always are.
   */
  redirects: {
    redirect: ShellRedirect;
    cwdIndex: number;
    written?: { truncates: boolean };
    read?: boolean;
    computed?: boolean;
  }[];
  /** Working directories in order of `cd`: index 0 is the project root; later entries are raw targets. */
  cdTargets: string[];
  /** Commands that run after a `cd`: the directory they may run in is checked like a read or write. */
  cwdUses: { text: string; cwdIndex: number; read: boolean }[];
  problems: string[];
  /** Why a part runs code the analyser cannot see (see CommandClass.opaque). */
  opaque: string[];
}

const MAX_DEPTH = 8;
const CACHE_LIMIT = 4096;
const syntaxCache = new Map<string, Syntax>();
const DEVICE_SINKS = /^\/dev\/(null|stdout|stderr|fd\/\d+|tty)$/;
const NETWORK_DEVICE = /^\/dev\/(tcp|udp)\//;
const OUTPUT_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
const APPENDING_OPS = new Set(['>>', '&>>', '<>']);

/** Splits, classes and resolves a bash command against the project `root` and `home` (SPEC 6.1, 6.5). */
export async function analyzeBash(command: string, root: string, home: string): Promise<BashAnalysis> {
  let syntax = syntaxCache.get(command);
  if (!syntax) {
    syntax = new SyntaxCollector(await loadShellParser()).collect(command);
    if (syntaxCache.size >= CACHE_LIMIT) syntaxCache.delete(syntaxCache.keys().next().value ?? '');
    syntaxCache.set(command, syntax);
  }
  return resolveSyntax(command, syntax, root, home);
}

/** Gathers the parts of a command and of every source it runs (`sh -c`, `eval`, substitutions). */
class SyntaxCollector {
  private readonly syntax: Syntax = {
    commands: [],
    redirects: [],
    cdTargets: [],
    cwdUses: [],
    problems: [],
    opaque: [],
  };
  private readonly seenInner = new Map<string, { text: string; safety: SafetyClass; why: string }>();

  constructor(private readonly withTree: WithShellTree) {}

  collect(command: string): Syntax {
    this.collectSource(command, false, [], 0);
    return this.syntax;
  }

  private collectSource(source: string, derived: boolean, wrappers: string[], depth: number): void {
    let parsed: ParsedShell;
    try {
      parsed = this.withTree(source, (root) => walkShell(root, source));
    } catch (error) {
      this.syntax.problems.push(`parse error: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.collectParsed(parsed, derived, wrappers, depth);
  }

  private collectParsed(parsed: ParsedShell, derived: boolean, wrappers: string[], depth: number): void {
    if (depth > MAX_DEPTH) {
      this.syntax.problems.push('nesting too deep to follow');
      return;
    }
    this.syntax.problems.push(...parsed.problems);
    for (const simple of parsed.commands) this.addSimpleCommand(simple, derived, wrappers, depth);
    for (const inner of parsed.substitutions) this.collectParsed(inner, derived, wrappers, depth + 1);
    for (const inner of parsed.reparse) this.collectSource(inner, derived, wrappers, depth + 1);
  }

  private addSimpleCommand(simple: SimpleCommand, derived: boolean, wrappers: string[], depth: number): void {
    const syntax = this.syntax;
    const words = simple.words.map((w) => w.value);
    const assignments = simple.assignments.map((w) => w.value);
    const first = simple.words[0];
    if (first && (first.dynamic || first.glob)) {
      syntax.problems.push(`command name "${first.raw}" is computed at run time`);
    }
    trackDirectoryCommand(simple.words, syntax);
    for (const redirect of simple.redirects) addRedirect(redirect, syntax);
    addWrittenOperands(simple.words, syntax);
    const text = [...assignments, ...words].join(' ');
    if (words.length === 0) {
      if (assignments.length > 0) {
        const variable = executingAssignment(assignments);
        const why = variable
          ? `${variable}= makes later programs run other code`
          : 'a variable assignment changes the environment of later commands';
        const safety = variable ? 'destructive' : 'write';
        const opaque = variable ? why : undefined;
        if (opaque) syntax.opaque.push(opaque);
        syntax.commands.push({ text, words, assignments, wrappers, derived, safety, why, opaque });
      }
      return;
    }
    const opaqueBefore = syntax.opaque.length;
    const classes = this.classifyWords(simple.words, wrappers, depth);
    let { safety, why } = classes;
    const variable = executingAssignment(assignments);
    if (variable) {
      safety = 'destructive';
      why = `${variable}= makes programs run other code`;
      syntax.opaque.push(why);
    } else if (assignments.length > 0) {
      safety = maxSafety(safety, 'write');
      why = `${why}; prefixed by assignments`;
      syntax.commands.push({
        text: words.join(' '),
        words,
        assignments: [],
        wrappers,
        derived: true,
        safety,
        why,
      });
    }
    for (const variant of variantsOf(words)) {
      const variantText = variant.join(' ');
      syntax.commands.push({
        text: variantText,
        words: variant,
        assignments: [],
        wrappers,
        derived: true,
        safety,
        why,
      });
    }
    const opaque = syntax.opaque[opaqueBefore];
    syntax.commands.push({ text, words, assignments, wrappers, derived, safety, why, opaque });
    if (syntax.cdTargets.length > 0 && !isDirectoryCommand(words)) {
      syntax.cwdUses.push({ text, cwdIndex: syntax.cdTargets.length, read: safety === 'read' });
    }
  }

  /** The class of a command, following wrappers into the commands they run (which become derived forms). */
  private classifyWords(
    shellWords: ShellWord[],
    wrappers: string[],
    depth: number,
  ): { safety: SafetyClass; why: string } {
    const syntax = this.syntax;
    const words = shellWords.map((w) => w.value);
    const unwrapped = unwrapCommand(words);
    if (!unwrapped) {
      const commandClass = classifyCommand(words);
      addOperandChecks(shellWords, commandClass, syntax);
      if (commandClass.opaque) syntax.opaque.push(commandClass.why);
      return commandClass;
    }
    const innerWrappers = [...wrappers, unwrapped.wrapper];
    const before = syntax.commands.length;
    const seenClasses: { text: string; safety: SafetyClass; why: string }[] = [];
    for (const inner of unwrapped.inner) {
      if (inner.length === 0) continue;
      // Positional wrappers offer every suffix: each distinct one is classed once.
      const key = inner.join('\u0000');
      const seen = this.seenInner.get(key);
      if (seen) {
        seenClasses.push(seen);
        continue;
      }
      if (depth >= MAX_DEPTH) {
        syntax.problems.push('wrappers nested too deep to follow');
        continue;
      }
      const innerWords = inner.map(plainWord);
      addWrittenOperands(innerWords, syntax);
      const innerClass = this.classifyWords(innerWords, innerWrappers, depth + 1);
      this.seenInner.set(key, { text: inner.join(' '), ...innerClass });
      for (const form of [inner, ...variantsOf(inner)]) {
        syntax.commands.push({
          text: form.join(' '),
          words: form,
          assignments: [],
          wrappers: innerWrappers,
          derived: true,
          ...innerClass,
        });
      }
    }
    for (const source of unwrapped.sources) this.collectSource(source, true, innerWrappers, depth + 1);
    let safety = unwrapped.safety;
    let why = `${unwrapped.wrapper} runs another command`;
    for (const inner of [...syntax.commands.slice(before), ...seenClasses]) {
      if (SAFETY_ORDER.indexOf(inner.safety) > SAFETY_ORDER.indexOf(safety)) {
        safety = inner.safety;
        why = `${unwrapped.wrapper} runs "${inner.text}": ${inner.why}`;
      }
    }
    if (unwrapped.safety === 'destructive') why = `${unwrapped.wrapper} is destructive`;
    if (unwrapped.safety === 'destructive' && unwrapped.inner.length === 0 && unwrapped.sources.length === 0)
      syntax.opaque.push(`${unwrapped.wrapper} runs code it reads from a file or its input`);
    // The wrapper's own arguments (`env -C /tmp`, `flock /tmp/l`) name places the command writes in.
    if (safety !== 'read')
      addPathArguments(shellWords, unwrapped.wrapper, syntax.cdTargets.length, safety, syntax);
    return { safety, why };
  }
}

/**
 * Other spellings of the same command that deny rules must still catch: `/bin/rm x` is also `rm x`,
 * `git -C . --no-pager push` is also `git push`.
 */
function variantsOf(words: string[]): string[][] {
  const variants: string[][] = [];
  const bare = [basename(words[0]), ...words.slice(1)];
  if (words[0].includes('/')) variants.push(bare);
  if (bare[0] === 'git') {
    let index = 1;
    while (index < bare.length && bare[index].startsWith('-')) {
      index += GIT_OPTIONS_WITH_VALUE.has(bare[index]) ? 2 : 1;
    }
    if (index > 1) variants.push(['git', ...bare.slice(index)]);
  }
  return variants;
}

const GIT_OPTIONS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
]);

/** `cd`, `pushd`, `popd`, also as `builtin cd` or `command cd`, with their options skipped (`cd -P ~`). */
function trackDirectoryCommand(words: ShellWord[], syntax: Syntax): void {
  let index = 0;
  while (
    index < words.length - 1 &&
    (words[index].value === 'builtin' || words[index].value === 'command') &&
    !words[index + 1].value.startsWith('-')
  )
    index++;
  const name = words[index]?.value;
  if (name === 'popd') {
    syntax.problems.push('popd changes to a directory not known in advance');
    return;
  }
  if (name !== 'cd' && name !== 'pushd') return;
  index++;
  while (index < words.length && /^-[a-zA-Z@]+$/.test(words[index].value)) index++;
  if (words[index]?.value === '--') index++;
  trackDirectoryChange(words[index], syntax);
}

function trackDirectoryChange(target: ShellWord | undefined, syntax: Syntax): void {
  if (target && (target.dynamic || target.glob || target.value === '-' || isUserTilde(target))) {
    syntax.problems.push(`cd to "${target.raw}" is computed at run time`);
    return;
  }
  syntax.cdTargets.push(target ? target.value : '~');
}

/** `~user/…` expands to another user's home, which the analyser does not look up. */
function isUserTilde(word: ShellWord): boolean {
  return word.tilde && word.value !== '~' && !word.value.startsWith('~/');
}

/** A word known only by its value (the command a wrapper runs): expansions in it are taken as computed. */
function plainWord(value: string): ShellWord {
  return {
    raw: value,
    value,
    dynamic: /[$`]/.test(value),
    glob: /[*?[]/.test(value),
    tilde: value.startsWith('~'),
  };
}

/** Files a writing command names as operands (`tee`, `cp`, `sed -i`, …), checked like redirections. */
function addWrittenOperands(words: ShellWord[], syntax: Syntax): void {
  if (words.length === 0 || words[0].dynamic) return;
  for (const operand of writeOperands(words.map((w) => w.value))) {
    const word = words[operand.index];
    if (!word) continue;
    const target = operand.offset ? { ...word, value: word.value.slice(operand.offset), tilde: false } : word;
    if (target.dynamic || target.glob || isUserTilde(target)) {
      syntax.problems.push(`file "${word.raw}" written by ${words[0].value} is computed at run time`);
      continue;
    }
    if (target.value === '' || target.value === '-' || DEVICE_SINKS.test(target.value)) continue;
    syntax.redirects.push({
      redirect: { op: basename(words[0].value), target },
      cwdIndex: syntax.cdTargets.length,
      written: { truncates: operand.truncates },
    });
  }
}

/** The files a classified command names: reads and writes, checked when they leave the project. */
function addOperandChecks(words: ShellWord[], commandClass: CommandClass, syntax: Syntax): void {
  const op = basename(words[0]?.value ?? '');
  const cwdIndex = syntax.cdTargets.length;
  if (commandClass.safety !== 'read') addPathArguments(words, op, cwdIndex, commandClass.safety, syntax);
  for (const ref of commandClass.writes ?? []) {
    const target = operandWord(words, ref);
    if (!target) continue;
    if (target.dynamic || target.glob || isUserTilde(target)) {
      syntax.problems.push(`file "${target.raw}" written by ${op} is computed at run time`);
      continue;
    }
    if (target.value === '' || target.value === '-' || DEVICE_SINKS.test(target.value)) continue;
    syntax.redirects.push({ redirect: { op, target }, cwdIndex, written: { truncates: ref.truncates } });
  }
  for (const ref of commandClass.reads ?? []) {
    const target = operandWord(words, ref);
    if (!target || target.value === '' || target.value === '-') continue;
    // `<(cmd)` is a pipe bash opens; the command inside is analysed on its own.
    if (/^[<>]\([\s\S]*\)$/.test(target.raw)) continue;
    if (target.dynamic || isUserTilde(target)) {
      syntax.redirects.push({ redirect: { op, target }, cwdIndex, read: true, computed: true });
      continue;
    }
    const literal = target.glob ? { ...target, value: globBase(target.value) } : target;
    syntax.redirects.push({ redirect: { op, target: literal }, cwdIndex, read: true });
  }
}

/**
 * A command that may write (`rm -rf ../x`, `npm install --prefix=/opt`, `make -C /tmp`) may write any path
 * it names: every argument that looks like a path (`/…`, `~…`, `..`, `a/b`, `--opt=/…`) or starts with a
 * parameter expansion is checked like a written file, so a path outside the project asks and is never
 * approved by --yes (SPEC 5, issue 15 point 4).
 */
function addPathArguments(
  words: ShellWord[],
  op: string,
  cwdIndex: number,
  safety: SafetyClass,
  syntax: Syntax,
): void {
  const truncates = safety === 'destructive';
  for (let index = 1; index < words.length; index++) {
    const word = words[index];
    if (/^[<>]\(/.test(word.raw)) continue;
    if (isUserTilde(word) || /^"?\$(\{|[A-Za-z_])/.test(word.raw)) {
      syntax.redirects.push({
        redirect: { op, target: word },
        cwdIndex,
        written: { truncates },
        computed: true,
      });
      continue;
    }
    if (word.dynamic) continue;
    const equals = /^(--?[A-Za-z][\w-]*|[A-Za-z]\w*)=/.exec(word.value);
    // `--out=/x`, `of=/x` and an attached short option's value (`-O/tmp/x`) name paths too.
    const attached = !equals && /^-[A-Za-z](\/|~|\.\.)/.test(word.value);
    const value = equals ? word.value.slice(equals[0].length) : attached ? word.value.slice(2) : word.value;
    if (value === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || DEVICE_SINKS.test(value)) continue;
    if (!/^[/~]|^\.\.(\/|$)|\//.test(value) || value.startsWith('-')) continue;
    const target = { ...word, value: word.glob ? globBase(value) : value, tilde: value.startsWith('~') };
    syntax.redirects.push({ redirect: { op, target }, cwdIndex, written: { truncates } });
  }
}

function operandWord(words: ShellWord[], ref: { index: number; offset: number }): ShellWord | undefined {
  const word = words[ref.index];
  if (!word || ref.offset === 0) return word;
  return { ...word, value: word.value.slice(ref.offset), tilde: false };
}

/** The directory a glob lists: its text up to the last `/` before the first pattern character. */
function globBase(pattern: string): string {
  const first = pattern.search(/[*?[{]/);
  const head = first === -1 ? pattern : pattern.slice(0, first);
  const slash = head.lastIndexOf('/');
  if (slash === -1) return '.';
  return slash === 0 ? '/' : head.slice(0, slash);
}

function isDirectoryCommand(words: string[]): boolean {
  return /^(cd|pushd|popd)$/.test(words[0] ?? '');
}

function addRedirect(redirect: ShellRedirect, syntax: Syntax): void {
  const target = redirect.target;
  if (NETWORK_DEVICE.test(target.value)) {
    syntax.problems.push(`redirection to the network device ${target.value}`);
    return;
  }
  if (redirect.op === '<' || redirect.op === '<&') {
    // An input file is read: outside the project it is checked like any outside read.
    if (redirect.op === '<&' && /^(\d+|-)$/.test(target.value)) return;
    const cwdIndex = syntax.cdTargets.length;
    if (target.dynamic || isUserTilde(target))
      syntax.redirects.push({ redirect, cwdIndex, read: true, computed: true });
    else if (target.glob) syntax.problems.push(`redirection source "${target.raw}" is computed at run time`);
    else if (!DEVICE_SINKS.test(target.value) && target.value !== '/dev/stdin')
      syntax.redirects.push({ redirect, cwdIndex, read: true });
    return;
  }
  if (!OUTPUT_OPS.has(redirect.op)) return;
  if (redirect.op === '>&' && /^(\d+|-)$/.test(target.value)) return;
  if (target.dynamic || target.glob || isUserTilde(target)) {
    syntax.problems.push(`redirection target "${target.raw}" is computed at run time`);
    return;
  }
  if (DEVICE_SINKS.test(target.value)) return;
  syntax.redirects.push({ redirect, cwdIndex: syntax.cdTargets.length });
}

function resolveSyntax(command: string, syntax: Syntax, root: string, home: string): BashAnalysis {
  // reachable[k]: where the shell may be after the first k `cd`s (a cd may not run: `cd x || true`).
  const reachable: string[][] = [[root]];
  for (const target of syntax.cdTargets) {
    const before = reachable[reachable.length - 1];
    reachable.push([...new Set([...before, ...before.map((cwd) => absolutePath(target, cwd, home))])]);
  }
  const cwds = reachable[reachable.length - 1];
  const redirects: BashRedirect[] = [];
  for (const { redirect, cwdIndex, written, read, computed } of syntax.redirects) {
    const kind = read ? 'read' : 'write';
    if (computed) {
      // A path known only at run time may be anywhere: checked as outside, so no --yes approves it.
      const target = redirect.target.raw;
      redirects.push({
        kind,
        op: redirect.op,
        target,
        paths: [target],
        truncates: false,
        outsideProject: true,
      });
      continue;
    }
    // After a cd, the target is checked against every directory the shell may be in.
    const candidates = cwdIndex === 0 ? [root] : cwds;
    const paths = [
      ...new Set(candidates.map((cwd) => realPath(absolutePath(redirect.target.value, cwd, home)))),
    ];
    const outsideProject = paths.some((p) => !isInside(p, root));
    if ((written || read) && !outsideProject) continue;
    redirects.push({
      kind,
      op: redirect.op,
      target: redirect.target.value,
      paths,
      truncates: written ? written.truncates : !APPENDING_OPS.has(redirect.op),
      outsideProject,
    });
  }
  // A command run after `cd` out of the project reads or writes there: its directory is checked like a
  // redirect target (ask outside the project, never approved by --yes, unless a rule allows the place).
  for (const { text, cwdIndex, read } of syntax.cwdUses) {
    const outside = [...new Set(reachable[cwdIndex].map((cwd) => realPath(cwd)))].filter(
      (p) => !isInside(p, root),
    );
    if (outside.length === 0) continue;
    redirects.push({
      kind: read ? 'read' : 'write',
      op: 'cd',
      target: `${text} (after cd)`,
      paths: outside,
      truncates: false,
      outsideProject: true,
    });
  }
  let safety: SafetyClass = 'read';
  let why = syntax.commands[0]?.why ?? 'no commands';
  for (const part of syntax.commands) {
    if (SAFETY_ORDER.indexOf(part.safety) > SAFETY_ORDER.indexOf(safety)) {
      safety = part.safety;
      why = part.why;
    }
  }
  for (const redirect of redirects) {
    if (redirect.kind === 'read') continue;
    const redirectClass: SafetyClass =
      redirect.outsideProject && redirect.truncates ? 'destructive' : 'write';
    if (SAFETY_ORDER.indexOf(redirectClass) > SAFETY_ORDER.indexOf(safety)) {
      safety = redirectClass;
      why =
        redirectClass === 'destructive'
          ? `redirection truncates ${redirect.target} outside the project`
          : `redirection writes ${redirect.target}`;
      if (redirect.op === 'cd') why = `${redirect.target} runs outside the project`;
      else if (!OUTPUT_OPS.has(redirect.op))
        why = `${redirect.op} writes ${redirect.target} outside the project`;
    }
  }
  if (syntax.problems.length > 0) {
    safety = 'destructive';
    why = `not fully understood: ${syntax.problems[0]}`;
  }
  const opaque = syntax.problems[0];
  return {
    command,
    commands: syntax.commands,
    redirects,
    safety,
    why,
    problems: [...syntax.problems],
    opaque,
  };
}

export function maxSafety(a: SafetyClass, b: SafetyClass): SafetyClass {
  return SAFETY_ORDER.indexOf(a) >= SAFETY_ORDER.indexOf(b) ? a : b;
}
