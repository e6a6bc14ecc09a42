import type { SafetyClass } from '../tool/tool.js';

/** The class of one simple command (SPEC 6.5) and the table entry that gave it. */
export interface CommandClass {
  safety: SafetyClass;
  why: string;
}

/** A command that runs another: its name and what it runs (words, or shell source to parse). */
export interface Unwrapped {
  wrapper: string;
  innerWords?: string[];
  innerSource?: string;
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
  tree: /^-o$/,
  less: /^-o|^--log-file/,
  printf: /^-v$/,
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
]);
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
  if (name === '') return { safety: 'read', why: 'no command' };
  if (DESTRUCTIVE_COMMANDS.has(name)) return { safety: 'destructive', why: `${name} is destructive` };
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
    if (rest.some((a) => a.startsWith('--output') || a === '--ext-diff' || a.startsWith('--textconv'))) {
      return { safety: 'write', why: `git ${sub} with an output or external program flag` };
    }
    return { safety: 'read', why: `git ${sub} is read-only` };
  }
  return { safety: 'write', why: `git ${sub || '(no subcommand)'}` };
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
  // A sed script can write files (w, W) or run commands (e); only plain print/substitute scripts are read.
  const script = args.find((a) => !a.startsWith('-')) ?? '';
  if (/[wWe]\s*\S*$|\/[a-zA-Z]*[we]/.test(script))
    return { safety: 'write', why: 'sed script may write or execute' };
  return { safety: 'read', why: 'sed without -i is read-only' };
}

/** Options of each wrapper that take a value, so the wrapped command is found after them. */
const WRAPPER_VALUE_OPTIONS: Record<string, Set<string>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir']),
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '--user', '--group']),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n', '-p', '-P', '-u']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e']),
  xargs: new Set(['-n', '-I', '-L', '-P', '-d', '-s', '-E', '-a', '--max-args', '--replace', '--delimiter']),
  exec: new Set(['-a']),
  time: new Set(['-f', '-o', '--format', '--output']),
  watch: new Set(['-n', '-d', '--interval']),
  flock: new Set(['-w', '-E', '--timeout']),
  chroot: new Set(['--userspec', '--groups']),
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
  'flock',
  'chroot',
  'strace',
  'ltrace',
  'busybox',
  'watch',
]);
const PRIVILEGE_WRAPPERS = new Set(['sudo', 'doas', 'pkexec']);

/** Recognises a command that runs another one (SPEC 6.1 wrappers). */
export function unwrapCommand(words: string[]): Unwrapped | undefined {
  const wrapper = basename(words[0] ?? '');
  const args = words.slice(1);
  if (wrapper === 'eval') return { wrapper, innerSource: args.join(' '), safety: 'destructive' };
  if (SHELLS.has(wrapper)) return unwrapShell(wrapper, args);
  if (wrapper === 'su') {
    const at = args.findIndex((a) => a === '-c' || a === '--command');
    return at === -1
      ? { wrapper, safety: 'destructive' }
      : { wrapper, innerSource: args[at + 1] ?? '', safety: 'destructive' };
  }
  if (wrapper === 'script') {
    const at = args.indexOf('-c');
    return at === -1 ? undefined : { wrapper, innerSource: args[at + 1] ?? '', safety: 'write' };
  }
  if (wrapper === 'find') {
    const at = args.findIndex((a) => FIND_EXEC.has(a));
    if (at === -1) return undefined;
    const end = args.findIndex((a, i) => i > at && (a === ';' || a === '+'));
    return { wrapper, innerWords: args.slice(at + 1, end === -1 ? undefined : end), safety: 'write' };
  }
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
    else if (arg.startsWith('-') && arg.length > 1) index += valueOptions.has(arg) ? 2 : 1;
    else break;
  }
  if (wrapper === 'timeout' && index < args.length) index++;
  const inner = args.slice(index);
  if (wrapper === 'env' && args.some((a) => a === '-S' || a.startsWith('--split-string'))) {
    return { wrapper, innerSource: inner.join(' '), safety: 'destructive' };
  }
  if (wrapper === 'watch') return { wrapper, innerSource: inner.join(' '), safety: 'write' };
  if (inner.length === 0) return wrapper === 'xargs' ? { wrapper, innerWords: ['echo'], safety } : undefined;
  return { wrapper, innerWords: inner, safety };
}

function unwrapShell(wrapper: string, args: string[]): Unwrapped {
  const at = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
  if (at === -1) {
    // A shell reading a script file or stdin runs code the analyser cannot see.
    return { wrapper, safety: 'destructive' };
  }
  return { wrapper, innerSource: args[at + 1] ?? '', safety: 'write' };
}
