import type { CommandClass } from './command-class.js';

/**
 * Commands that run code handed to them (SPEC 6.5, issue 15): an interpreter given a program on the
 * command line or on standard input, a package runner, an editor told to run commands, a tool given a
 * program by option. These are `destructive`; an interpreter running a file of the project stays `write`
 * (as the project's own build and test commands do).
 */
const INTERPRETER_CODE_OPTIONS: Record<string, RegExp> = {
  python: /^-[a-zA-Z]*c/,
  node: /^(-[a-zA-Z]*[ep]|--eval|--print|--import|--require|-r|--loader|--experimental-loader)/,
  deno: /^(eval|repl)$/,
  bun: /^(-e|--eval|-p|--print|x|repl)$/,
  perl: /^-[a-zA-Z]*[eE]|^-[a-zA-Z]*[MmI]/,
  ruby: /^-[a-zA-Z]*[erI]/,
  php: /^-[a-zA-Z]*[rBERa]/,
  lua: /^-[a-zA-Z]*[el]/,
  Rscript: /^(-e|--expr)/,
  R: /^(-e|--expr)/,
  tclsh: /^-/,
  osascript: /^-e/,
  pwsh: /^-(c|command|e|encodedcommand)/i,
  java: /^--source|^-jar/,
  jshell: /^-/,
  irb: /^-/,
  ghci: /^-e/,
  julia: /^-[a-zA-Z]*e|^--eval/,
  awk: /^$/,
};
const INTERPRETER_ALIASES: Record<string, string> = {
  python2: 'python',
  python3: 'python',
  pypy: 'python',
  pypy3: 'python',
  nodejs: 'node',
  perl5: 'perl',
  powershell: 'pwsh',
  wish: 'tclsh',
};
/** Runners that fetch or run a package's program by name. */
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx', 'uvx', 'pipx']);
const RUNNER_SUBCOMMANDS: Record<string, Set<string>> = {
  npm: new Set(['exec', 'x']),
  pnpm: new Set(['dlx', 'exec']),
  yarn: new Set(['dlx', 'exec']),
  bun: new Set(['x']),
  uv: new Set(['run', 'tool']),
  pipx: new Set(['run']),
};
const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'ex', 'gvim', 'emacs', 'nano', 'ed', 'vimdiff']);
/** Options that name a program another tool runs (`rsync -e`, `ssh -o ProxyCommand=…`, `man -P`). */
const PROGRAM_OPTIONS: Record<string, RegExp> = {
  rsync: /^(-[a-zA-Z]*e|--rsh|--rsync-path)/,
  ssh: /^(-[a-zA-Z]*o|-[a-zA-Z]*F)/,
  scp: /^(-[a-zA-Z]*[oFS])/,
  sftp: /^(-[a-zA-Z]*[oFS])/,
  man: /^(-[a-zA-Z]*[PH]|--pager|--html)/,
  make: /^(--eval|-E)/,
  less: /^[+]|^-[a-zA-Z]*[oO]|^--lo/i,
  more: /^[+]/,
  zip: /^(-[a-zA-Z]*T|--unzip-command|-TT)/,
  curl: /^(-K|--config)/,
  wget: /^(-e|--execute|--use-askpass)/,
  gpg: /^--(exec-path|photo-viewer)/,
};

/** Classes an interpreter, runner, editor or program-option command; `undefined` for any other. */
export function classifyExecutor(name: string, words: string[]): CommandClass | undefined {
  const args = words.slice(1);
  if (PACKAGE_RUNNERS.has(name))
    return { safety: 'destructive', opaque: true, why: `${name} runs a package's program` };
  const runner = RUNNER_SUBCOMMANDS[name];
  if (runner?.has(args.find((a) => !a.startsWith('-')) ?? ''))
    return {
      safety: 'destructive',
      why: `${name} ${args.find((a) => !a.startsWith('-'))} runs a package's program`,
    };
  if (
    EDITORS.has(name) &&
    args.some((a) => /^(\+|-c$|--cmd|-S$|-s$|--eval|--execute|-x$|-u$|-l$|--load)/.test(a))
  )
    return { safety: 'destructive', opaque: true, why: `${name} is told to run commands` };
  const programOption = PROGRAM_OPTIONS[name];
  if (programOption && args.some((a) => programOption.test(a)))
    return { safety: 'destructive', opaque: true, why: `${name} is given a program or configuration to run` };
  const interpreter = interpreterName(name);
  if (!interpreter) return undefined;
  const codeOption = INTERPRETER_CODE_OPTIONS[interpreter];
  if (args.some((a) => codeOption.test(a)))
    return { safety: 'destructive', opaque: true, why: `${name} is given code to run` };
  const script = args.find((a) => !a.startsWith('-'));
  if (script === undefined || args.includes('-'))
    return { safety: 'destructive', opaque: true, why: `${name} runs code from standard input` };
  return undefined;
}

function interpreterName(name: string): string | undefined {
  const base = INTERPRETER_ALIASES[name] ?? name.replace(/^(python)[0-9.]+$/, '$1');
  return Object.hasOwn(INTERPRETER_CODE_OPTIONS, base) && base !== 'awk' ? base : undefined;
}

/**
 * Environment variables that make a later program run other code (`GIT_EXTERNAL_DIFF`, `BASH_ENV`,
 * `LD_PRELOAD`, `PAGER`, …). Setting one, as a prefix, an assignment, `export` or through `env`, is
 * destructive.
 */
const EXECUTING_VARIABLE =
  /^(GIT_[A-Z0-9_]*|BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS4|IFS|CDPATH|GLOBIGNORE|LD_[A-Z_]+|DYLD_[A-Z_]+|PATH|PAGER|MANPAGER|MANOPT|SYSTEMD_PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESS|BROWSER|SSH_ASKPASS|SUDO_ASKPASS|GPG_AGENT_INFO|NODE_OPTIONS|NODE_PATH|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|TAR_OPTIONS|GREP_OPTIONS|RIPGREP_CONFIG_PATH|FZF_DEFAULT_COMMAND|npm_config_[a-z_]+|NPM_CONFIG_[A-Z_]+|MAKEFLAGS|MFLAGS|CC|CXX|LESSKEY|XDG_CONFIG_HOME|HOME|ZDOTDIR|INPUTRC|TERMINFO)$/;

/** The first assignment (`NAME=value`, `NAME+=value`) that sets such a variable, if any. */
export function executingAssignment(texts: string[]): string | undefined {
  for (const text of texts) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(text);
    if (match && EXECUTING_VARIABLE.test(match[1])) return match[1];
  }
  return undefined;
}
