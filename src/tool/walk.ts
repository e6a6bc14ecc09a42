import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Ignore } from 'ignore';
import { isInside } from './paths.js';

/** The ignore rules of one directory's .gitignore, matched relative to that directory. */
interface IgnoreLevel {
  dir: string;
  rules: Ignore;
}

export interface WalkOptions {
  /** Project root: .gitignore files from here down to the start directory apply. */
  root: string;
  signal?: AbortSignal;
}

/** Never listed, whatever the ignore files say. */
const ALWAYS_SKIPPED = new Set(['.git']);

/** The .gitignore matcher loads with the first walk (a tool call, an `@` completion), not with cadre. */
const loadIgnore = () => import('ignore').then((module) => module.default);

/** Larger ignore files (and anything but a regular file) are read through the thread pool. */
const ON_THREAD_IGNORE_BYTES = 256 * 1024;

/**
 * A file the walk listed (grep's candidates, an ignore file), read whole on cadre's thread: through the thread
 * pool its stat and read took five round trips each, most of a small tree's search (issue 17). The open is
 * non-blocking and the type checked on the opened descriptor, so a FIFO put in the file's place after the
 * walk listed it is passed over, never waited on. A file over `maxBytes` is not read; one that cannot be
 * opened is still told as too large when its size says so.
 */
export function readListedFile(
  file: string,
  maxBytes: number,
): { bytes: Buffer } | { tooLarge: true } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    try {
      return statSync(file).size > maxBytes ? { tooLarge: true } : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (stats.size > maxBytes) return { tooLarge: true };
    return { bytes: readFileSync(fd) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

async function loadLevel(dir: string): Promise<IgnoreLevel | undefined> {
  const file = path.join(dir, '.gitignore');
  // Most directories have none: asked first, without the error (and its stack trace) a failed read makes.
  if (!existsSync(file)) return undefined;
  const small = readListedFile(file, ON_THREAD_IGNORE_BYTES);
  const text =
    small && 'bytes' in small
      ? small.bytes.toString('utf8')
      : await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const ignore = await loadIgnore();
  try {
    return { dir, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

/** Git semantics: the deepest .gitignore with an opinion on the path decides. */
function isIgnored(levels: IgnoreLevel[], absolute: string, isDirectory: boolean): boolean {
  for (let index = levels.length - 1; index >= 0; index--) {
    const level = levels[index];
    const relative = path.relative(level.dir, absolute).split(path.sep).join('/');
    const verdict = level.rules.test(isDirectory ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** The ignore levels that apply above `start`: the root's and every directory between. */
async function ancestorLevels(root: string, start: string): Promise<IgnoreLevel[]> {
  const base = isInside(root, start) ? root : start;
  const dirs = [base];
  for (let dir = start; dir !== base && isInside(base, dir); dir = path.dirname(dir)) dirs.splice(1, 0, dir);
  const levels = await Promise.all(dirs.map(loadLevel));
  return levels.filter((level): level is IgnoreLevel => level !== undefined);
}

async function isFileEntry(entry: Dirent, absolute: string, boundary: string): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  // Linked files are listed only where they lead inside the walked tree (a link out of the project is not
  // followed, issue 15); linked directories are not followed, which keeps the walk free of cycles.
  try {
    return (await stat(absolute)).isFile() && isInside(boundary, await realpath(absolute));
  } catch {
    return false;
  }
}

/**
 * Every file under `start` in a stable (sorted) order, honouring the .gitignore files of the tree and
 * skipping `.git`. Stops early when the signal aborts or the consumer stops iterating.
 */
export async function* walkFiles(start: string, options: WalkOptions): AsyncGenerator<string> {
  const levels = await ancestorLevels(options.root, start);
  const ownLevel = levels.at(-1)?.dir === start;
  const boundary = isInside(options.root, start) ? options.root : start;
  yield* walkDirectory(start, ownLevel ? levels.slice(0, -1) : levels, options.signal, boundary);
}

async function* walkDirectory(
  dir: string,
  inherited: IgnoreLevel[],
  signal: AbortSignal | undefined,
  boundary: string,
): AsyncGenerator<string> {
  if (signal?.aborted) return;
  // The listing is read on cadre's thread, where the thread pool cost a round trip per directory (issue
  // 17); the event loop still gets a turn before each directory, as it did while the pool read it.
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const own = await loadLevel(dir);
  const levels = own ? [...inherited, own] : inherited;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (signal?.aborted) return;
    if (ALWAYS_SKIPPED.has(entry.name)) continue;
    const absolute = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!isIgnored(levels, absolute, true)) yield* walkDirectory(absolute, levels, signal, boundary);
    } else if (!isIgnored(levels, absolute, false) && (await isFileEntry(entry, absolute, boundary))) {
      yield absolute;
    }
  }
}
