import type { SafetyClass } from '../tool/tool.js';
import type { CommandClass } from './command-class.js';
import { classifyExecutor, executingAssignment } from './exec-classify.js';
import { classifyReader } from './read-classify.js';
import { classifySed } from './sed-classify.js';

export type { CommandClass } from './command-class.js';

/** A command that runs others: its name and what it runs (words, or shell source to parse). */
export interface Unwrapped {
  wrapper: string;
  /** Commands it may run, as words (several for `find -exec … \; -exec …` or positional wrappers). */
  inner: string[][];
  /** Shell source it runs (`sh -c`, `eval`, `trap`, `flock -c`, …). */
  sources: string[];
  /** The wrapper's own class, before the inner command's is combined with it. */
  safety: SafetyClass;
}

const DESTRUCTIVE_COMMANDS = new Set([
  'rm',
  'rmdir',
  'shred',
  'dd',
  'fdisk',
  'sfdisk',
  'parted',
  'wipefs',
  'mkswap',
  'sudo',
  'doas',
  'su',
  'pkexec',
  'killall',
  'pkill',
  'reboot',
  'shutdown',
  'halt',
  'poweroff',
  'truncate',
  'unlink',
  'eval',
  'srm',
  // Run code the analyser cannot see: a script file, a loadable builtin, a command table change.
  'source',
  '.',
  'enable',
]);
/** Builtins that take variable names: a subscript in a name is evaluated as arithmetic, running `$(…)`. */
const NAME_BUILTINS = new Set([
  'printf',
  'read',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'mapfile',
  'readarray',
  'unset',
  'wait',
  'getopts',
]);
const TEST_COMMANDS = new Set(['test', '[', '[[']);
/** Destructive commands that run code the analyser cannot see. */
const OPAQUE_COMMANDS = new Set(['source', '.', 'enable', 'eval', 'sudo', 'doas', 'su', 'pkexec']);
const DECLARATION_BUILTINS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
const RECURSIVE_OWNERSHIP = new Set(['chmod', 'chown', 'chgrp']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'busybox-sh']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
export function basename(command: string): string {
  const slash = command.lastIndexOf('/');
  return slash === -1 ? command : command.slice(slash + 1);
}

/** Classes a simple command that is not a wrapper (see unwrapCommand). `words[0]` is the command. */
export function classifyCommand(words: string[]): CommandClass {
  const name = basename(words[0] ?? '');
  const args = words.slice(1);
  if (words.length === 0) return { safety: 'read', why: 'no command' };
  if (name === '') return { safety: 'write', why: `${words[0]} is not a known read-only command` };
  if (DESTRUCTIVE_COMMANDS.has(name))
    return { safety: 'destructive', opaque: OPAQUE_COMMANDS.has(name), why: `${name} is destructive` };
  if (DECLARATION_BUILTINS.has(name)) {
    const variable = executingAssignment(args);
    if (variable)
      return {
        safety: 'destructive',
        opaque: true,
        why: `${name} sets ${variable}, which makes programs run other code`,
      };
  }
  const executor = classifyExecutor(name, words);
  if (executor) return executor;
  const evaluated = evaluatedSubscript(name, args);
  if (evaluated) return { safety: 'destructive', why: evaluated };
  if (name === 'hash' && args.some((a) => /^-[a-zA-Z]*p/.test(a)))
    return { safety: 'destructive', opaque: true, why: 'hash -p changes which program a name runs' };
  if ((name === 'mapfile' || name === 'readarray') && args.some((a) => /^-[a-zA-Z]*C/.test(a)))
    return { safety: 'destructive', opaque: true, why: `${name} -C runs a callback` };
  if (/^mkfs(\.|$)/.test(name)) return { safety: 'destructive', why: 'mkfs is destructive' };
  if (RECURSIVE_OWNERSHIP.has(name) && args.some(isRecursiveFlag)) {
    return { safety: 'destructive', why: `${name} -R is destructive` };
  }
  if (name === 'kill' && args.some((a) => /^-(9|KILL|SIGKILL|s)$/.test(a))) {
    return { safety: 'destructive', why: 'kill -9 is destructive' };
  }
  if (name === 'crontab' && args.includes('-r'))
    return { safety: 'destructive', why: 'crontab -r is destructive' };
  if (name === 'sed') return classifySed(args);
  const reader = classifyReader(name, words);
  if (reader) return reader;
  return { safety: 'write', why: `${name} is not a known read-only command` };
}

/**
 * A variable name whose subscript bash evaluates as arithmetic (`test -v 'a[$(rm x)]'`, `read 'a[…]'`,
 * `let`, `declare -i`): quoting does not stop the substitution inside from running.
 */
function evaluatedSubscript(name: string, args: string[]): string | undefined {
  const computed = (arg: string) => /\[[^\]]*\]/.test(arg) && !/^[^[]*(\[([0-9]+|@|\*)\][^[]*)*$/.test(arg);
  if (name === 'let' && args.some((a) => /[^0-9\s+\-*/%()<>=!&|^~,]/.test(a)))
    return 'let evaluates names as arithmetic';
  if (
    (name === 'declare' || name === 'typeset' || name === 'local') &&
    args.some((a) => /^-[a-zA-Z]*[in]/.test(a))
  )
    return `${name} -i/-n makes later assignments or expansions evaluate arithmetic`;
  if (TEST_COMMANDS.has(name)) {
    const named = args.filter((_a, i) => i > 0 && /^-[vR]$/.test(args[i - 1]));
    return named.some(computed) ? `${name} -v evaluates an array subscript as arithmetic` : undefined;
  }
  if (NAME_BUILTINS.has(name) && args.some(computed))
    return `${name} evaluates an array subscript as arithmetic`;
  return undefined;
}

function isRecursiveFlag(arg: string): boolean {
  return arg === '--recursive' || /^-[a-zA-Z]*R/.test(arg);
}

/** Options of each wrapper that take a value, so the wrapped command is found after them. */
const WRAPPER_VALUE_OPTIONS: Record<string, Set<string>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir']),
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '--user', '--group']),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n', '-p', '-P', '-u']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
  xargs: new Set([
    '-n',
    '-I',
    '-L',
    '-P',
    '-d',
    '-s',
    '-E',
    '-a',
    '--max-args',
    '--delimiter',
    '--arg-file',
    '--max-procs',
    '--max-chars',
    '--process-slot-var',
  ]),
  exec: new Set(['-a']),
  time: new Set(['-f', '-o', '--format', '--output']),
  watch: new Set(['-n', '-d', '--interval']),
  strace: new Set(['-e', '-o', '-p', '-s', '-u']),
  ltrace: new Set(['-e', '-o', '-p', '-s', '-u']),
};
const TRANSPARENT_WRAPPERS = new Set([
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'setsid',
  'unbuffer',
  'coproc',
  'xargs',
  'strace',
  'ltrace',
  'busybox',
  'watch',
]);
const PRIVILEGE_WRAPPERS = new Set(['sudo', 'doas', 'pkexec']);

/**
 * Wrappers whose command follows positional arguments of their own (`flock FILE cmd`, `chroot DIR cmd`,
 * `taskset MASK cmd`, …): the command is not found by skipping options, so every later word that is not
 * an option is taken as where it may start.
 */
const POSITIONAL_WRAPPERS = new Set([
  'flock',
  'chroot',
  'taskset',
  'chrt',
  'unshare',
  'setpriv',
  'runuser',
  'nsenter',
  'prlimit',
  'firejail',
  'fakeroot',
  'faketime',
  'systemd-run',
  'catchsegv',
  'torsocks',
  'proxychains',
  'proxychains4',
  'numactl',
  'cgexec',
  'eatmydata',
  'nocache',
  'trickle',
  'cpulimit',
  'sg',
  'valgrind',
  'rlwrap',
  'xvfb-run',
  'dbus-run-session',
  'parallel',
  'sem',
]);

/** Recognises a command that runs others (SPEC 6.1 wrappers). */
export function unwrapCommand(words: string[]): Unwrapped | undefined {
  const wrapper = basename(words[0] ?? '');
  const args = words.slice(1);
  const none = { inner: [] as string[][], sources: [] as string[] };
  if (wrapper === 'eval') return { wrapper, ...none, sources: [args.join(' ')], safety: 'destructive' };
  if (SHELLS.has(wrapper)) return unwrapShell(wrapper, args);
  if (wrapper === 'su') {
    const at = args.findIndex((a) => a === '-c' || a === '--command');
    return { wrapper, ...none, sources: at === -1 ? [] : [args[at + 1] ?? ''], safety: 'destructive' };
  }
  if (wrapper === 'script') {
    const at = args.indexOf('-c');
    return at === -1 ? undefined : { wrapper, ...none, sources: [args[at + 1] ?? ''], safety: 'write' };
  }
  if (wrapper === 'trap') {
    // `trap 'code' SIGNAL…` runs code later in this shell.
    const positional = args.filter((a) => !/^-[lp-]*$/.test(a) || a === '-');
    return positional.length > 1 && positional[0] !== '-'
      ? { wrapper, ...none, sources: [positional[0]], safety: 'write' }
      : undefined;
  }
  if (wrapper === 'find') {
    const inner: string[][] = [];
    for (let at = 0; at < args.length; at++) {
      if (!FIND_EXEC.has(args[at])) continue;
      const end = args.findIndex((a, i) => i > at && (a === ';' || a === '+'));
      inner.push(args.slice(at + 1, end === -1 ? undefined : end));
      if (end === -1) break;
      at = end;
    }
    const safety: SafetyClass = args.includes('-delete') ? 'destructive' : 'write';
    return inner.length === 0 ? undefined : { wrapper, inner, sources: [], safety };
  }
  if (POSITIONAL_WRAPPERS.has(wrapper)) return unwrapPositional(wrapper, args);
  if (!TRANSPARENT_WRAPPERS.has(wrapper) && !PRIVILEGE_WRAPPERS.has(wrapper)) return undefined;
  let wrapperSafety: SafetyClass = PRIVILEGE_WRAPPERS.has(wrapper) ? 'destructive' : 'read';
  if ((wrapper === 'command' || wrapper === 'type') && args.some((a) => a === '-v' || a === '-V'))
    return undefined;
  const valueOptions = WRAPPER_VALUE_OPTIONS[wrapper] ?? new Set<string>();
  let index = 0;
  while (index < args.length) {
    const arg = args[index];
    if (arg === '--') {
      index++;
      break;
    }
    if (wrapper === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      if (executingAssignment([arg])) wrapperSafety = 'destructive';
      index++;
    } else if (arg.startsWith('-') && arg.length > 1) index += takesValue(valueOptions, arg) ? 2 : 1;
    else break;
  }
  if (wrapper === 'timeout' && index < args.length) index++;
  const safety = wrapperSafety;
  const inner = args.slice(index);
  const split = args.findIndex((a) => /^-[a-zA-Z]*S|^--sp/.test(a));
  if (wrapper === 'env' && split !== -1) {
    const arg = args[split];
    const attached = arg.startsWith('--')
      ? arg.slice(arg.indexOf('=') + 1 || arg.length)
      : arg.slice(arg.indexOf('S') + 1);
    const source = [attached, ...args.slice(split + 1)].join(' ');
    return { wrapper, ...none, sources: [source], safety: 'destructive' };
  }
  if (wrapper === 'watch') return { wrapper, ...none, sources: [inner.join(' ')], safety: 'write' };
  if (inner.length === 0)
    return wrapper === 'xargs' ? { wrapper, ...none, inner: [['echo']], safety } : undefined;
  return { wrapper, ...none, inner: [inner], safety };
}

/** An option that takes the next word as its value, abbreviated long forms included. */
function takesValue(valueOptions: Set<string>, arg: string): boolean {
  if (valueOptions.has(arg)) return true;
  if (!arg.startsWith('--') || arg.includes('=')) return false;
  for (const option of valueOptions) if (option.startsWith(arg)) return true;
  return false;
}

function unwrapPositional(wrapper: string, args: string[]): Unwrapped {
  const inner: string[][] = [];
  const sources: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (/^(-c|--command)$/.test(arg)) sources.push(args[index + 1] ?? '');
    if (!arg.startsWith('-') && index > 0) inner.push(args.slice(index));
  }
  if (args.length > 0 && !args[0].startsWith('-')) inner.push(args);
  // With no command, `chroot DIR` and `unshare` start an interactive shell.
  const safety: SafetyClass = inner.length === 0 && sources.length === 0 ? 'destructive' : 'write';
  return { wrapper, inner, sources, safety };
}

function unwrapShell(wrapper: string, args: string[]): Unwrapped {
  // bash runs the first argument that is not an option as `-c` source, or as a script file without `-c`.
  let command = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--' || arg === '-') {
      const next = args[index + 1];
      if (command) return { wrapper, inner: [], sources: [next ?? ''], safety: 'write' };
      break;
    }
    if (/^[-+][a-zA-Z]+$/.test(arg) || arg.startsWith('--')) {
      if (arg.startsWith('-') && !arg.startsWith('--') && arg.includes('c')) command = true;
      if (/^[-+][a-zA-Z]*[oO]$|^--(rcfile|init-file)$/.test(arg)) index++;
      continue;
    }
    if (command) return { wrapper, inner: [], sources: [arg], safety: 'write' };
    break;
  }
  // A shell reading a script file or stdin runs code the analyser cannot see.
  return { wrapper, inner: [], sources: [], safety: 'destructive' };
}

/** A file a command writes, named by its arguments (`tee f`, `cp a f`, `sed -i … f`, `find -fprint f`). */
export interface WriteOperand {
  /** Index into the command's words. */
  index: number;
  /** Characters of the word before the path (`--output=`). */
  offset?: number;
  truncates: boolean;
}

/**
 * The operands a known file-writing command writes, so that those outside the project are checked like
 * redirections (SPEC 6.1, 6.5). Option values are approximated: extra operands only make checks stricter.
 */
export function writeOperands(words: string[]): WriteOperand[] {
  const name = basename(words[0] ?? '');
  const operands: number[] = [];
  let target: number | undefined;
  let afterDashes = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index];
    if (!afterDashes && word === '--') afterDashes = true;
    else if (!afterDashes && /^(-t|--target-directory|--target)$/.test(word)) target = ++index;
    else if (!afterDashes && /^--target-directory=/.test(word)) target = index;
    else if (!afterDashes && word.startsWith('-') && word.length > 1) continue;
    else operands.push(index);
  }
  const all = (truncates: boolean) => operands.map((index) => ({ index, truncates }));
  const last = () => {
    if (target !== undefined) return [{ index: target, truncates: true }];
    return operands.length > 1 ? [{ index: operands[operands.length - 1], truncates: true }] : [];
  };
  const optionValue = (pattern: RegExp) => {
    const found: WriteOperand[] = [];
    words.forEach((word, index) => {
      if (index === 0) return;
      if (pattern.test(word) && index + 1 < words.length) found.push({ index: index + 1, truncates: true });
      const attached = /^(--[a-z-]+=|-o)(.+)$/s.exec(word);
      if (attached && pattern.test(word.slice(0, attached[1].length).replace(/=$/, '')))
        found.push({ index, offset: attached[1].length, truncates: true });
    });
    return found;
  };
  switch (name) {
    case 'tee':
      return all(!words.some((w) => /^-[a-zA-Z]*a$|^--append$/.test(w)));
    case 'mv':
      return target !== undefined ? [...all(true), { index: target, truncates: true }] : all(true);
    case 'cp':
    case 'ln':
    case 'install':
    case 'rsync':
      return words.some((w) => w === '-d' || w === '--directory') ? all(false) : last();
    case 'touch':
    case 'mkdir':
      return all(false);
    case 'sed':
      return words.some((w) => /^-[a-zA-Z]*i|^--in-place/.test(w)) ? all(true) : [];
    case 'find':
      return optionValue(/^(-fprint|-fprint0|-fprintf|-fls)$/);
    default:
      return [];
  }
}
