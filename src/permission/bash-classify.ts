import type { SafetyClass } from '../tool/tool.js';

/** The class of one simple command (SPEC 6.5) and the table entry that gave it. */
export interface CommandClass {
  safety: SafetyClass;
  why: string;
}

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

const READ_COMMANDS = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'pwd',
  'echo',
  'printf',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'tree',
  'file',
  'stat',
  'du',
  'df',
  'which',
  'type',
  'whereis',
  'whoami',
  'id',
  'date',
  'uname',
  'hostname',
  'printenv',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'comm',
  'uniq',
  'cut',
  'tr',
  'nl',
  'less',
  'more',
  'jq',
  'true',
  'false',
  'test',
  '[',
  '[[',
  'seq',
  'sleep',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'base64',
  'xxd',
  'od',
  'hexdump',
  'strings',
  'column',
  'fold',
  'fmt',
  'rev',
  'tac',
  'paste',
  'join',
  'expand',
  'unexpand',
  'cd',
  'pushd',
  'popd',
  'dirs',
  'ps',
  'uptime',
  'locale',
  'tty',
  'groups',
  'cal',
  'lsof',
  'free',
  'nproc',
  'getconf',
  'cksum',
  'sum',
  'look',
  ':',
]);
// `sort -o`, `rg --pre`, `find -fprint` and friends write or run things; listed flags demote a read.
const WRITING_FLAGS: Record<string, RegExp> = {
  sort: /^(-o|--output)/,
  rg: /^--pre(=|$)/,
  uniq: /^-/,
  tree: /^-[oR]$/,
  // less accepts clustered short options and abbreviated long ones (`-O log`, `--LOG=x`).
  less: /^-[a-zA-Z]*[oO]|^--lo/i,
  printf: /^-v/,
  date: /^-[a-zA-Z]*s|^--s/,
  hostname: /^-[a-zA-Z]*[bF]|^--(b|fi)|^[^-]/,
};
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
const RECURSIVE_OWNERSHIP = new Set(['chmod', 'chown', 'chgrp']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'busybox-sh']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITES = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);
const GIT_READ = new Set([
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'reflog',
  'cat-file',
  'merge-base',
  'whatchanged',
  'name-rev',
  'for-each-ref',
  'count-objects',
  'version',
  'help',
  'rev-list',
  'show-ref',
  'check-ignore',
  'var',
]);

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
  if (DESTRUCTIVE_COMMANDS.has(name)) return { safety: 'destructive', why: `${name} is destructive` };
  const evaluated = evaluatedSubscript(name, args);
  if (evaluated) return { safety: 'destructive', why: evaluated };
  if (name === 'hash' && args.some((a) => /^-[a-zA-Z]*p/.test(a)))
    return { safety: 'destructive', why: 'hash -p changes which program a name runs' };
  if ((name === 'mapfile' || name === 'readarray') && args.some((a) => /^-[a-zA-Z]*C/.test(a)))
    return { safety: 'destructive', why: `${name} -C runs a callback` };
  if (name === 'xxd' && args.filter((a) => !a.startsWith('-')).length > 1)
    return { safety: 'write', why: 'xxd with an output file' };
  if (/^mkfs(\.|$)/.test(name)) return { safety: 'destructive', why: 'mkfs is destructive' };
  if (RECURSIVE_OWNERSHIP.has(name) && args.some(isRecursiveFlag)) {
    return { safety: 'destructive', why: `${name} -R is destructive` };
  }
  if (name === 'kill' && args.some((a) => /^-(9|KILL|SIGKILL|s)$/.test(a))) {
    return { safety: 'destructive', why: 'kill -9 is destructive' };
  }
  if (name === 'crontab' && args.includes('-r'))
    return { safety: 'destructive', why: 'crontab -r is destructive' };
  if (name === 'git') return classifyGit(args);
  if (name === 'find') return classifyFind(args);
  if (name === 'sed') return classifySed(args);
  if (READ_COMMANDS.has(name)) {
    const writing = WRITING_FLAGS[name];
    if (writing && args.some((a) => writing.test(a)))
      return { safety: 'write', why: `${name} with an output flag` };
    if (name === 'uniq' && args.filter((a) => !a.startsWith('-')).length > 1) {
      return { safety: 'write', why: 'uniq with an output file' };
    }
    return { safety: 'read', why: `${name} is read-only` };
  }
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

function classifyGit(args: string[]): CommandClass {
  let index = 0;
  while (index < args.length && args[index].startsWith('-')) {
    const option = args[index];
    if (option === '-c' || option.startsWith('--config-env') || option.startsWith('--exec-path')) {
      return { safety: 'destructive', why: 'git -c can run arbitrary commands' };
    }
    index += option === '-C' || option === '--git-dir' || option === '--work-tree' ? 2 : 1;
  }
  const sub = args[index] ?? '';
  const rest = args.slice(index + 1);
  const has = (...flags: string[]) => rest.some((a) => flags.includes(a));
  switch (sub) {
    case 'push':
      return { safety: 'destructive', why: 'git push is destructive' };
    case 'clean':
      return { safety: 'destructive', why: 'git clean is destructive' };
    case 'filter-branch':
    case 'filter-repo':
      return { safety: 'destructive', why: `git ${sub} rewrites history` };
    case 'reset':
      return has('--hard', '--merge', '--keep')
        ? { safety: 'destructive', why: 'git reset --hard is destructive' }
        : { safety: 'write', why: 'git reset' };
    case 'checkout':
      return has('--', '.', '-f', '--force')
        ? { safety: 'destructive', why: 'git checkout -- discards changes' }
        : { safety: 'write', why: 'git checkout' };
    case 'restore':
      return { safety: 'destructive', why: 'git restore discards changes' };
    case 'branch':
      if (has('-D', '--delete', '-d') && has('-f', '--force', '-D')) {
        return { safety: 'destructive', why: 'git branch -D is destructive' };
      }
      return rest.every((a) =>
        /^(-a|-r|-v|-vv|--list|-l|--all|--remotes|--show-current|--merged|--no-merged|--contains)$/.test(a),
      )
        ? { safety: 'read', why: 'git branch (listing) is read-only' }
        : { safety: 'write', why: 'git branch' };
    case 'stash':
      if (rest[0] === 'drop' || rest[0] === 'clear')
        return { safety: 'destructive', why: `git stash ${rest[0]}` };
      return rest[0] === 'list' || rest[0] === 'show'
        ? { safety: 'read', why: `git stash ${rest[0]} is read-only` }
        : { safety: 'write', why: 'git stash' };
    case 'reflog':
      return rest[0] === 'expire' || rest[0] === 'delete'
        ? { safety: 'destructive', why: `git reflog ${rest[0]}` }
        : { safety: 'read', why: 'git reflog is read-only' };
    case 'tag':
      return rest.length === 0 || rest.every((a) => a === '-l' || a === '--list' || a.startsWith('-n'))
        ? { safety: 'read', why: 'git tag (listing) is read-only' }
        : { safety: 'write', why: 'git tag' };
    case 'remote':
      return rest.length === 0 || (rest.length === 1 && rest[0] === '-v')
        ? { safety: 'read', why: 'git remote (listing) is read-only' }
        : { safety: 'write', why: 'git remote' };
    case 'config':
      return rest.some((a) => a === '--get' || a === '--list' || a === '-l' || a.startsWith('--get'))
        ? { safety: 'read', why: 'git config (reading) is read-only' }
        : { safety: 'write', why: 'git config' };
  }
  if (GIT_READ.has(sub)) {
    if (rest.some((a) => isGitRunningOption(sub, a))) {
      return { safety: 'write', why: `git ${sub} with an output or external program flag` };
    }
    return { safety: 'read', why: `git ${sub} is read-only` };
  }
  return { safety: 'write', why: `git ${sub || '(no subcommand)'}` };
}

/** Long options git also accepts abbreviated (`--outp=x` is `--output=x`). */
const GIT_WRITING_OPTIONS = ['--output', '--ext-diff', '--textconv', '--open-files-in-pager'];

/** An option of a reading git command that writes a file or runs a program. */
function isGitRunningOption(sub: string, arg: string): boolean {
  if (sub === 'grep' && /^-[a-zA-Z]*O/.test(arg)) return true;
  const name = arg.split('=')[0];
  if (!name.startsWith('--') || name.length < 4 || name === '--text' || name.startsWith('--output-indicator'))
    return false;
  return GIT_WRITING_OPTIONS.some((option) => option.startsWith(name) || name.startsWith(option));
}

function classifyFind(args: string[]): CommandClass {
  if (args.includes('-delete')) return { safety: 'destructive', why: 'find -delete is destructive' };
  if (args.some((a) => FIND_EXEC.has(a))) return { safety: 'write', why: 'find -exec runs commands' };
  if (args.some((a) => FIND_WRITES.has(a))) return { safety: 'write', why: 'find -fprint writes files' };
  return { safety: 'read', why: 'find without -delete/-exec is read-only' };
}

function classifySed(args: string[]): CommandClass {
  if (args.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a))) {
    return { safety: 'write', why: 'sed -i edits files' };
  }
  const scripts: string[] = [];
  let firstPositional: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--') break;
    if (/^-[a-zA-Z]*f|^--f/.test(arg)) {
      return { safety: 'destructive', why: 'sed -f runs a script the analyser cannot see' };
    }
    const short = /^-[a-zA-Z]*e(.*)$/s.exec(arg);
    if (short && !arg.startsWith('--')) {
      if (short[1] !== '') scripts.push(short[1]);
      else scripts.push(args[++index] ?? '');
      continue;
    }
    const long = /^--e[a-z]*(=(.*))?$/s.exec(arg);
    if (long) {
      scripts.push(long[1] !== undefined ? (long[2] ?? '') : (args[++index] ?? ''));
      continue;
    }
    if (/^-[a-zA-Z]*l$|^--line-length$/.test(arg)) index++;
    else if (!arg.startsWith('-')) firstPositional ??= arg;
  }
  if (scripts.length === 0) scripts.push(firstPositional ?? '');
  let effect: SedEffect = 'read';
  for (const script of scripts) effect = worseEffect(effect, sedScriptEffect(script));
  switch (effect) {
    case 'read':
      return { safety: 'read', why: 'sed without -i is read-only' };
    case 'write':
      return { safety: 'write', why: 'sed script writes files' };
    case 'exec':
      return { safety: 'destructive', why: 'sed script runs shell commands' };
    case 'unknown':
      return { safety: 'destructive', why: 'sed script not understood' };
  }
}

/** What a sed script may do: only print (read), write files (`w`, `W`, `s///w`), or run commands (`e`, `s///e`). */
type SedEffect = 'read' | 'write' | 'exec' | 'unknown';

const SED_EFFECT_ORDER: SedEffect[] = ['read', 'write', 'exec', 'unknown'];
const SED_SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', '{', '}']);
const SED_WITH_NUMBER = new Set(['q', 'Q', 'l', 'L']);
const SED_LABEL = new Set([':', 'b', 't', 'T', 'v']);

function worseEffect(a: SedEffect, b: SedEffect): SedEffect {
  return SED_EFFECT_ORDER.indexOf(a) >= SED_EFFECT_ORDER.indexOf(b) ? a : b;
}

/**
 * Scans a GNU sed script command by command (addresses, `s`/`y` with any delimiter, text and file
 * arguments). Anything it does not recognise is `unknown`, which callers treat as not understood.
 */
function sedScriptEffect(script: string): SedEffect {
  let effect: SedEffect = 'read';
  let i = 0;
  const n = script.length;
  const toLineEnd = () => {
    while (i < n && script[i] !== '\n') i++;
  };
  /** Reads a delimited part (`/re/`), honouring backslash escapes; false when unterminated. */
  const delimited = (delim: string, regex: boolean): boolean => {
    while (i < n && script[i] !== delim) {
      if (regex && script[i] === '[') {
        // A bracket expression: the delimiter inside it is literal (`s/[/]/x/`).
        i++;
        if (script[i] === '^') i++;
        if (script[i] === ']') i++;
        while (i < n && script[i] !== ']') {
          if (script[i] === '[' && /[:.=]/.test(script[i + 1] ?? '')) {
            const close = script.indexOf(`${script[i + 1]}]`, i + 2);
            if (close === -1) return false;
            i = close + 2;
          } else if (script[i] === '\n') return false;
          else i++;
        }
        if (i >= n) return false;
        i++;
        continue;
      }
      if (script[i] === '\\') i++;
      else if (script[i] === '\n' && delim !== '\n') return false;
      i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/[0-9]/.test(script[i] ?? '')) {
      while (/[0-9~]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '$') i++;
    else if (script[i] === '/') {
      i++;
      if (!delimited('/', true)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '\\') {
      const delim = script[i + 1];
      if (delim === undefined) return false;
      i += 2;
      if (!delimited(delim, true)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    }
    return true;
  };
  while (i < n) {
    const c = script[i];
    if (/[\s;]/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      toLineEnd();
      continue;
    }
    if (!address()) return 'unknown';
    if (script[i] === ',') {
      i++;
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return 'unknown';
    }
    while (script[i] === ' ' || script[i] === '\t' || script[i] === '!') i++;
    const command = script[i];
    if (command === undefined) return 'unknown';
    i++;
    if (SED_SIMPLE.has(command)) continue;
    if (SED_WITH_NUMBER.has(command)) {
      while (/[\s0-9]/.test(script[i] ?? '') && script[i] !== '\n') i++;
      continue;
    }
    if (SED_LABEL.has(command)) {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
      continue;
    }
    if (command === 'a' || command === 'i' || command === 'c') {
      // Text runs to the end of the line; a backslash-newline continues it.
      while (i < n && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
      continue;
    }
    if (command === 'r' || command === 'R') {
      toLineEnd();
      continue;
    }
    if (command === 'w' || command === 'W') {
      effect = worseEffect(effect, 'write');
      toLineEnd();
      continue;
    }
    if (command === 'e') return 'exec';
    if (command === 's' || command === 'y') {
      const delim = script[i];
      if (delim === undefined || delim === '\\' || delim === '\n') return 'unknown';
      i++;
      if (!delimited(delim, command === 's') || !delimited(delim, false)) return 'unknown';
      if (command === 'y') continue;
      while (i < n && /[gpiImM0-9ew]/.test(script[i])) {
        const flag = script[i];
        i++;
        if (flag === 'e') return 'exec';
        if (flag === 'w') {
          effect = worseEffect(effect, 'write');
          toLineEnd();
        }
      }
      continue;
    }
    return 'unknown';
  }
  return effect;
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
  const safety: SafetyClass = PRIVILEGE_WRAPPERS.has(wrapper) ? 'destructive' : 'read';
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
    if (wrapper === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) index++;
    else if (arg.startsWith('-') && arg.length > 1) index += takesValue(valueOptions, arg) ? 2 : 1;
    else break;
  }
  if (wrapper === 'timeout' && index < args.length) index++;
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
    case 'sort':
      return optionValue(/^(-o|--output)$/);
    case 'git':
      return optionValue(/^--output$/);
    case 'xxd':
      return operands.length > 1 ? [{ index: operands[1], truncates: true }] : [];
    default:
      return [];
  }
}
