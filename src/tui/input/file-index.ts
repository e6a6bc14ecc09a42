import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { isInside } from '../../tool/paths.js';
import { walkFiles } from '../../tool/walk.js';

/** Files listed at most; a larger tree is still completed from its first files in walk order. */
const MAX_FILES = 20_000;
/** A listing younger than this is reused; new files show up on the next `@` after it. */
const FRESH_MS = 5_000;

/**
 * The project's files for `@path` completion: what `.gitignore` does not exclude, as paths relative to the
 * root, and never a file outside it (a symlink leading out of the project is left out).
 */
export class ProjectFiles {
  private files: string[] = [];
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<string[]> | null = null;
  private readonly realRoot: string;

  constructor(
    private readonly root: string,
    private readonly now: () => number = Date.now,
  ) {
    this.realRoot = safeRealpath(root) ?? root;
  }

  /** The files, from the last listing when it is fresh, else listed again. */
  async list(): Promise<string[]> {
    if (this.now() - this.loadedAt < FRESH_MS) return this.files;
    this.loading ??= this.walk().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async walk(): Promise<string[]> {
    const files: string[] = [];
    for await (const absolute of walkFiles(this.root, { root: this.root })) {
      const real = safeRealpath(absolute);
      if (real === null || !isInside(this.realRoot, real)) continue;
      files.push(relative(this.root, absolute).split(sep).join('/'));
      if (files.length >= MAX_FILES) break;
    }
    this.files = files;
    this.loadedAt = this.now();
    return files;
  }
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The best matches for what follows `@`: a file name starting with the query first, then a path starting with
 * it, then paths containing it, then paths holding its characters in order; shorter paths first within each.
 */
export function rankPaths(paths: readonly string[], query: string, max = 8): string[] {
  const q = query.toLowerCase();
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const lower = path.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    let score: number;
    if (q === '') score = 3;
    else if (name.startsWith(q)) score = 0;
    else if (lower.startsWith(q)) score = 1;
    else if (lower.includes(q)) score = 2;
    else if (isSubsequence(q, lower)) score = 4;
    else continue;
    scored.push({ path, score });
  }
  scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, max).map((s) => s.path);
}

function isSubsequence(needle: string, haystack: string): boolean {
  let i = 0;
  for (const char of haystack) if (char === needle[i]) i++;
  return i === needle.length;
}
