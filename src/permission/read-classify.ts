import type { CommandClass, OperandRef } from './command-class.js';
import { classifyGit } from './git-classify.js';
import { compileOptions, type FoundOption, parseArguments } from './option-parser.js';
import { READER_ALIASES, readerSpec } from './read-table.js';

type WriteRef = OperandRef & { truncates: boolean };

const operand = (index: number): OperandRef => ({ index, offset: 0 });

/**
 * The class of a command that may only read (SPEC 6.5): table commands by their options, and the few
 * whose arguments are a language of their own (git, find, awk, tar, unzip, xxd, date, hostname).
 * `undefined` when `name` is not such a command.
 */
export function classifyReader(name: string, words: string[]): CommandClass | undefined {
  switch (name) {
    case 'git':
      return classifyGit(words);
    case 'find':
      return classifyFind(words);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return classifyAwk(name, words);
    case 'tar':
      return classifyTar(words);
    case 'unzip':
      return classifyUnzip(words);
    case 'xxd':
      return classifyXxd(words);
    case 'date':
      return classifyDate(words);
    case 'hostname':
      return classifyHostname(words);
    case 'echo':
    case 'test':
    case '[':
    case '[[':
    case 'cd':
    case 'pushd':
    case 'popd':
    case 'env':
      return { safety: 'read', why: `${name} is read-only` };
    case 'printf':
      return words.slice(1).some((w) => /^-v/.test(w))
        ? { safety: 'write', why: 'printf -v assigns a variable' }
        : { safety: 'read', why: 'printf is read-only' };
    case 'command':
      return words.slice(1).some((w) => w === '-v' || w === '-V')
        ? { safety: 'read', why: 'command -v is read-only' }
        : undefined;
  }
  return classifyByTable(READER_ALIASES[name] ?? name, words);
}

function classifyByTable(name: string, words: string[]): CommandClass | undefined {
  const reader = readerSpec(name);
  if (!reader) return undefined;
  const { spec, table } = reader;
  const parsed = parseArguments(words, table);
  const effects = optionEffects(name, parsed.options);
  if (effects.verdict) return effects.verdict;
  if (parsed.unknown)
    return { safety: 'write', why: `${name} option ${parsed.unknown} is not known to be harmless` };
  const reads = [...effects.reads];
  const writes = [...effects.writes];
  if (spec.operands !== 'text') {
    const given = new Set(parsed.options.map((o) => o.info.name));
    let operands = parsed.operands;
    if (spec.leading && !spec.leading.unless.some((u) => given.has(u)))
      operands = operands.slice(spec.leading.count);
    operands.forEach((index, position) => {
      if (spec.outputOperand === position + 1) writes.push({ index, offset: 0, truncates: true });
      else reads.push(operand(index));
    });
  }
  if (writes.length > 0) return { safety: 'write', why: `${name} writes a file`, reads, writes };
  if (effects.changes) return { safety: 'write', why: `${name} ${effects.changes} writes`, reads };
  return { safety: 'read', why: `${name} is read-only`, reads };
}

interface Effects {
  verdict?: CommandClass;
  reads: OperandRef[];
  writes: WriteRef[];
  /** The option that writes something unnamed. */
  changes?: string;
}

function optionEffects(name: string, options: FoundOption[]): Effects {
  const effects: Effects = { reads: [], writes: [] };
  for (const option of options) {
    switch (option.info.effect) {
      case 'runs':
        effects.verdict = {
          safety: 'destructive',
          opaque: true,
          why: `${name} ${option.text} runs a program`,
        };
        return effects;
      case 'writes':
        if (option.value) effects.writes.push({ ...option.value, truncates: true });
        else effects.changes ??= option.text;
        break;
      case 'changes':
        effects.changes ??= option.text;
        break;
      case 'reads':
        if (option.value) effects.reads.push(option.value);
        break;
      case 'harmless':
        break;
    }
  }
  return effects;
}

const FIND_NO_ARG = new Set(
  `-depth -mount -xdev -noleaf -daystart -follow -ignore_readdir_race -noignore_readdir_race -nouser -nogroup
  -empty -readable -writable -executable -print -print0 -ls -prune -quit -true -false -not -a -and -o -or ! ( ) ,
  -d -help --help -version --version`.split(/\s+/),
);
const FIND_ONE_ARG = new Set(
  `-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -regextype -type -xtype -size
  -mtime -mmin -atime -amin -ctime -cmin -used -user -group -uid -gid -perm -links -inum -maxdepth -mindepth
  -printf -context -fstype`.split(/\s+/),
);
const FIND_READS = new Set(['-samefile', '-newer', '-anewer', '-cnewer', '-files0-from']);
const FIND_WRITES: Record<string, number> = { '-fprint': 1, '-fprint0': 1, '-fls': 1, '-fprintf': 2 };

/** `find` without `-exec` (a wrapper, see unwrapCommand): every primary must be known. */
function classifyFind(words: string[]): CommandClass {
  const reads: OperandRef[] = [];
  const writes: WriteRef[] = [];
  let index = 1;
  while (index < words.length && /^-([HLP]|D|O[0-9]*)$/.test(words[index]))
    index += words[index] === '-D' ? 2 : 1;
  while (index < words.length && !/^[-!(),]/.test(words[index])) reads.push(operand(index++));
  while (index < words.length) {
    const word = words[index];
    if (word === '-delete') return { safety: 'destructive', why: 'find -delete is destructive' };
    if (FIND_NO_ARG.has(word)) index++;
    else if (FIND_ONE_ARG.has(word) || /^-newer[aBcmt][aBcmt]$/.test(word)) index += 2;
    else if (FIND_READS.has(word)) {
      reads.push(operand(index + 1));
      index += 2;
    } else if (Object.hasOwn(FIND_WRITES, word)) {
      writes.push({ index: index + 1, offset: 0, truncates: true });
      index += 1 + FIND_WRITES[word];
    } else return { safety: 'write', why: `find ${word} is not known to be harmless` };
  }
  if (writes.length > 0) return { safety: 'write', why: 'find -fprint writes files', reads, writes };
  return { safety: 'read', why: 'find without -delete/-exec is read-only', reads };
}

const AWK_OPTIONS = compileOptions({
  short: 'F: v: b c C g h L:: M n N O P r s S t V',
  long: `field-separator= assign= characters-as-bytes traditional copyright gen-pot help lint[=] bignum
    non-decimal-data use-lc-numeric optimize posix re-interval no-optimize sandbox lint-old version csv`,
  runs: 'f: file= E: exec= i: include= l: load= D:: debug[=]',
  writes: 'd:: dump-variables[=] o:: pretty-print[=] p:: profile[=]',
  changes: 'e: source=',
});

/** awk runs its program: read unless the program can run commands, write files or read other files. */
function classifyAwk(name: string, words: string[]): CommandClass {
  const parsed = parseArguments(words, AWK_OPTIONS);
  const sources = parsed.options.filter((o) => o.info.name === 'e' || o.info.name === 'source');
  const others = parsed.options.filter((o) => !sources.includes(o));
  const effects = optionEffects(name, others);
  if (effects.verdict) return effects.verdict;
  if (parsed.unknown)
    return { safety: 'write', why: `${name} option ${parsed.unknown} is not known to be harmless` };
  const sandbox = parsed.options.some((o) => o.info.name === 'S' || o.info.name === 'sandbox');
  let operands = parsed.operands;
  const programs = sources.flatMap((o) => (o.value ? [optionValue(words, o.value)] : []));
  if (programs.length === 0) {
    if (operands.length === 0) return { safety: 'read', why: `${name} without a program` };
    programs.push(words[operands[0]]);
    operands = operands.slice(1);
  }
  if (!sandbox) {
    for (const program of programs) {
      const effect = awkProgramEffect(program);
      if (effect)
        return {
          safety: effect.safety,
          opaque: effect.safety === 'destructive',
          why: `${name} program ${effect.why}`,
        };
    }
  }
  const reads = operands.filter((i) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])).map(operand);
  if (effects.writes.length > 0 || effects.changes)
    return { safety: 'write', why: `${name} writes a file`, reads, writes: effects.writes };
  return { safety: 'read', why: `${name} program only reads and prints`, reads };
}

function optionValue(words: string[], ref: OperandRef): string {
  return (words[ref.index] ?? '').slice(ref.offset);
}

/**
 * What an awk program may do besides printing: `system()`, pipes (`print | "cmd"`, `"cmd" | getline`),
 * output redirection (`print > "f"`), `getline` from files and `@load`/`@include` extensions. String and
 * regular-expression literals are skipped; a `>` that may be a comparison is taken as a redirection.
 */
export function awkProgramEffect(
  program: string,
): { safety: 'write' | 'destructive'; why: string } | undefined {
  let code = '';
  let previous = '';
  for (let i = 0; i < program.length; i++) {
    const c = program[i];
    if (c === '"') {
      i = skipLiteral(program, i, '"');
      code += '""';
      previous = '"';
      continue;
    }
    if (c === '/' && (previous === '' || /[(,~!{};&|\n?:=]/.test(previous))) {
      i = skipLiteral(program, i, '/');
      code += '//';
      previous = '/';
      continue;
    }
    code += c;
    if (!/\s/.test(c) || c === '\n') previous = c;
  }
  if (/@\s*(load|include|namespace)/.test(code)) return { safety: 'destructive', why: 'loads code' };
  if (/\bsystem\s*\(/.test(code)) return { safety: 'destructive', why: 'calls system()' };
  if (/\|/.test(code.replace(/\|\|/g, '')))
    return { safety: 'destructive', why: 'pipes to or from a command' };
  if (/\bgetline\b/.test(code)) return { safety: 'write', why: 'uses getline' };
  if (/>/.test(code.replace(/>=/g, ''))) return { safety: 'write', why: 'may redirect output to a file' };
  return undefined;
}

/** The index of the closing delimiter of a literal starting at `start` (escapes and `[…]` honoured). */
function skipLiteral(text: string, start: number, delimiter: string): number {
  let inClass = false;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (delimiter === '/' && c === '[') inClass = true;
    else if (inClass && c === ']') inClass = false;
    else if (c === delimiter && !inClass) return i;
  }
  return text.length;
}

const TAR_LIST = compileOptions({
  short: 't v f: z j J Z a',
  long: `list verbose file= gzip gunzip ungzip bzip2 xz zstd lzip lzma lzop auto-compress numeric-owner wildcards
    no-wildcards anchored no-anchored ignore-case no-ignore-case occurrence[=] exclude= exclude-vcs quoting-style=
    full-time utc show-transformed-names strip-components= transform= xform= null no-null blocking-factor=
    record-size= ignore-zeros wildcards-match-slash no-wildcards-match-slash`,
  reads: 'X: exclude-from= T: files-from=',
  runs: 'I: use-compress-program= to-command= checkpoint-action= info-script= new-volume-script= F: rsh-command= rmt-command=',
});

/** `tar` reads only when listing (`tar tvf a.tar`, `tar --list -f a.tar`); old-style clusters are read too. */
function classifyTar(words: string[]): CommandClass {
  const normalised = [...words];
  if (normalised[1] && !normalised[1].startsWith('-')) normalised[1] = `-${normalised[1]}`;
  const parsed = parseArguments(normalised, TAR_LIST);
  const effects = optionEffects('tar', parsed.options);
  if (effects.verdict) return effects.verdict;
  const listing = parsed.options.some((o) => o.info.name === 't' || o.info.name === 'list');
  if (parsed.unknown || !listing)
    return {
      safety: 'write',
      why: `tar ${parsed.unknown ?? ''} creates or extracts files`.replace('  ', ' '),
    };
  return { safety: 'read', why: 'tar listing is read-only', reads: effects.reads };
}

const UNZIP_OPTIONS = compileOptions({ short: 'l v t c p z q a b C L s O: I:', posixOrder: true });

/** `unzip -l/-v/-t/-c/-p/-z` lists, tests or prints; anything else extracts. */
function classifyUnzip(words: string[]): CommandClass {
  const parsed = parseArguments(words, UNZIP_OPTIONS);
  const modes = parsed.options.filter((o) => 'lvtcpz'.includes(o.info.name));
  if (parsed.unknown || modes.length === 0) return { safety: 'write', why: 'unzip extracts files' };
  const archive = parsed.operands[0];
  return {
    safety: 'read',
    why: `unzip ${modes[0].text} is read-only`,
    reads: archive === undefined ? [] : [operand(archive)],
  };
}

/** xxd's own option syntax (`-l 32`, `-c8`, `-ps`): `xxd IN OUT` writes OUT. */
function classifyXxd(words: string[]): CommandClass {
  const files: number[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index];
    if (word === '-' && files.length < 2) files.push(index);
    else if (word.startsWith('-') && word.length > 1) {
      const letter = word[1];
      if (!'abcCEeghilnoprRsuvd'.includes(letter))
        return { safety: 'write', why: `xxd option ${word} is not known to be harmless` };
      if ('cglnoRs'.includes(letter) && /^-[a-zA-Z]+$/.test(word)) index++;
    } else files.push(index);
  }
  const reads = files.slice(0, 1).map(operand);
  if (files.length > 1)
    return {
      safety: 'write',
      why: 'xxd with an output file',
      reads,
      writes: [{ index: files[1], offset: 0, truncates: true }],
    };
  return { safety: 'read', why: 'xxd is read-only', reads };
}

const DATE_OPTIONS = compileOptions({
  short: 'd: I:: R u',
  long: 'date= iso-8601[=] rfc-email rfc-3339= rfc-2822 debug resolution universal utc help version',
  reads: 'f: file= r: reference=',
  changes: 's: set=',
});

/** `date +FORMAT` prints; `date -s` or a bare `MMDDhhmm` operand sets the clock. */
function classifyDate(words: string[]): CommandClass {
  const parsed = parseArguments(words, DATE_OPTIONS);
  const effects = optionEffects('date', parsed.options);
  if (parsed.unknown)
    return { safety: 'write', why: `date option ${parsed.unknown} is not known to be harmless` };
  if (effects.changes || parsed.operands.some((i) => !words[i].startsWith('+')))
    return { safety: 'write', why: 'date sets the system clock' };
  return { safety: 'read', why: 'date is read-only', reads: effects.reads };
}

const HOSTNAME_OPTIONS = compileOptions({
  short: 'a A d f i I s y v',
  long: 'alias all-fqdns domain fqdn long all-ip-addresses ip-address ip-addresses short yp nis verbose help version',
  changes: 'b boot F: file=',
});

function classifyHostname(words: string[]): CommandClass {
  const parsed = parseArguments(words, HOSTNAME_OPTIONS);
  const effects = optionEffects('hostname', parsed.options);
  if (parsed.unknown || effects.changes || parsed.operands.length > 0)
    return { safety: 'write', why: 'hostname sets the host name' };
  return { safety: 'read', why: 'hostname is read-only' };
}
