/**
 * getopt_long as the GNU tools parse their arguments, driven by a per-command table of the options known to
 * be harmless and of those known to write or run something (SPEC 6.5, "read means read"). Short options
 * cluster (`-tvf x`), a short option's value may be attached (`-n5`), long options take `=value` or the next
 * word and may be abbreviated to any unambiguous prefix (`--outp=x` is `--output=x`). Anything the table
 * does not know is reported, so the caller can refuse to call the command a read.
 */

/** What an option does beyond changing what the command prints. */
export type OptionEffect =
  /** Only changes the output. */
  | 'harmless'
  /** Its value names a file the command reads. */
  | 'reads'
  /** Its value names a file the command writes: `write`, the target checked like a redirection. */
  | 'writes'
  /** Writes or changes something the analyser cannot name (a cache, the system clock): `write`. */
  | 'changes'
  /** Runs a program or code given to it: `destructive`. */
  | 'runs';

export type Arity = 'none' | 'required' | 'optional' | 'two';

export interface OptionInfo {
  name: string;
  arity: Arity;
  effect: OptionEffect;
}

/** A compiled table: short letters and long names (without dashes) to what they do. */
export interface OptionTable {
  short: Map<string, OptionInfo>;
  long: Map<string, OptionInfo>;
  /** `-5` means `-n 5` (head, tail). */
  numeric: boolean;
  /** Options end at the first operand (POSIX order) instead of anywhere before `--`. */
  posixOrder: boolean;
}

/**
 * The table as written in the command list: each field is a space-separated list. Short options are
 * single letters; a `:` suffix takes a value (`k:`), `::` an optional attached value. Long options are
 * names; `=` suffix a required value, `[=]` an optional one, `==` two values (jq `--arg NAME VALUE`).
 */
export interface OptionSpec {
  /** Harmless short options, e.g. `a b c n: t:`. */
  short?: string;
  /** Harmless long options, e.g. `all lines= color[=]`. */
  long?: string;
  /** Options (short or long, same notation) whose value is a file read. */
  reads?: string;
  /** Options whose value is a file written. */
  writes?: string;
  /** Options that write something unnamed. */
  changes?: string;
  /** Options that run a program or inline code. */
  runs?: string;
  numeric?: boolean;
  posixOrder?: boolean;
}

export function compileOptions(spec: OptionSpec): OptionTable {
  const table: OptionTable = {
    short: new Map(),
    long: new Map(),
    numeric: spec.numeric ?? false,
    posixOrder: spec.posixOrder ?? false,
  };
  const add = (list: string | undefined, effect: OptionEffect, longOnly: boolean) => {
    for (const entry of (list ?? '').split(/\s+/)) {
      if (entry === '') continue;
      const match = /^([^:=[\]]+)(::|:|\[=\]|==|=)?$/.exec(entry);
      if (!match) throw new Error(`bad option entry "${entry}"`);
      const [, name, suffix] = match;
      const arity: Arity =
        suffix === ':' || suffix === '='
          ? 'required'
          : suffix === '::' || suffix === '[=]'
            ? 'optional'
            : suffix === '=='
              ? 'two'
              : 'none';
      const info = { name, arity, effect };
      if (name.length === 1 && !longOnly) table.short.set(name, info);
      else table.long.set(name, info);
    }
  };
  add(spec.short, 'harmless', false);
  add(spec.long, 'harmless', true);
  add(spec.reads, 'reads', false);
  add(spec.writes, 'writes', false);
  add(spec.changes, 'changes', false);
  add(spec.runs, 'runs', false);
  return table;
}

/** One option as found in the words, with where its value is (an index into the words, and an offset). */
export interface FoundOption {
  info: OptionInfo;
  /** As written, for messages. */
  text: string;
  value?: { index: number; offset: number };
}

export interface ParsedArguments {
  options: FoundOption[];
  /** Indexes (into the words) of the operands. */
  operands: number[];
  /** The first option the table does not know, or an ambiguous abbreviation. */
  unknown?: string;
}

/** Parses `words` from index `from` (words[0] is usually the command name). */
export function parseArguments(words: string[], table: OptionTable, from = 1): ParsedArguments {
  const parsed: ParsedArguments = { options: [], operands: [] };
  let index = from;
  const fail = (text: string) => {
    parsed.unknown ??= text;
  };
  while (index < words.length) {
    const word = words[index];
    if (word === '--') {
      for (let rest = index + 1; rest < words.length; rest++) parsed.operands.push(rest);
      break;
    }
    if (word.startsWith('--') && word.length > 2) {
      index = parseLong(words, index, table, parsed, fail);
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      if (table.numeric && /^-[0-9]+[a-zA-Z]?$/.test(word)) {
        index++;
        continue;
      }
      index = parseShortCluster(words, index, table, parsed, fail);
      continue;
    }
    parsed.operands.push(index);
    index++;
    if (table.posixOrder) {
      for (; index < words.length; index++) parsed.operands.push(index);
    }
  }
  return parsed;
}

function parseLong(
  words: string[],
  index: number,
  table: OptionTable,
  parsed: ParsedArguments,
  fail: (text: string) => void,
): number {
  const word = words[index];
  const equals = word.indexOf('=');
  const name = equals === -1 ? word.slice(2) : word.slice(2, equals);
  const info = lookupLong(table, name);
  if (!info) {
    fail(word);
    return index + 1;
  }
  const found: FoundOption = { info, text: word };
  parsed.options.push(found);
  if (equals !== -1) {
    if (info.arity === 'none') fail(word);
    found.value = { index, offset: equals + 1 };
    return index + (info.arity === 'two' ? 2 : 1);
  }
  if (info.arity === 'required') {
    found.value = { index: index + 1, offset: 0 };
    return index + 2;
  }
  if (info.arity === 'two') {
    found.value = { index: index + 2, offset: 0 };
    return index + 3;
  }
  return index + 1;
}

/**
 * An exact name, or the option an abbreviation denotes. An abbreviation of several options is an error in
 * getopt (unless they are one option spelled twice, `--color`/`--colour`); if any candidate writes or
 * runs, it is taken as that candidate, so an abbreviation can never talk past a dangerous option.
 */
function lookupLong(table: OptionTable, name: string): OptionInfo | undefined {
  const exact = table.long.get(name);
  if (exact) return exact;
  if (name === '') return undefined;
  const candidates: OptionInfo[] = [];
  for (const [long, info] of table.long) if (long.startsWith(name)) candidates.push(info);
  if (candidates.length === 0) return undefined;
  const dangerous = candidates.find((c) => c.effect !== 'harmless' && c.effect !== 'reads');
  // Harmless candidates only: getopt either takes the one option they all spell or refuses to run.
  return dangerous ?? candidates.find((c) => c.effect === 'reads') ?? candidates[0];
}

function parseShortCluster(
  words: string[],
  index: number,
  table: OptionTable,
  parsed: ParsedArguments,
  fail: (text: string) => void,
): number {
  const word = words[index];
  for (let at = 1; at < word.length; at++) {
    const info = table.short.get(word[at]);
    if (!info) {
      fail(`-${word[at]}${at > 1 ? ` (in ${word})` : ''}`);
      return index + 1;
    }
    const found: FoundOption = { info, text: `-${word[at]}` };
    parsed.options.push(found);
    if (info.arity === 'none') continue;
    if (at + 1 < word.length) {
      found.value = { index, offset: at + 1 };
      return index + 1;
    }
    if (info.arity === 'optional') return index + 1;
    found.value = { index: index + 1, offset: 0 };
    return index + 2;
  }
  return index + 1;
}
