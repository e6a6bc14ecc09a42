import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { release } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { cadreCacheDir } from '../util/config-dir.js';

/**
 * A successful bwrap probe, remembered in cadre's cache directory so a start spawns nothing (issue 17).
 * Valid for one bwrap binary (real path, size, mtime), one kernel and one boot: a new bwrap, a kernel
 * update or a reboot (where user-namespace settings change) probes again. Only success is remembered:
 * the file is writable from inside the sandbox (`~/.cache`), and all a forged one can do is make cadre try
 * bwrap, which then fails loudly and forgets it (`forget`); a failure is never taken from the file.
 */
export interface ProbeCache {
  file: string;
  key: string;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** The first executable `name` on `PATH`, as a real path. */
export function findOnPath(name: string, path = ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      const stats = statSync(candidate, { throwIfNoEntry: false });
      // Any execute bit: the probe it stands for spawns it the same way.
      if (stats?.isFile() && (stats.mode & 0o111) !== 0) return realpathSync(candidate);
    } catch {
      // An unreadable PATH entry: the next one.
    }
  }
  return undefined;
}

/** Where the probe of the `bwrap` on `env.PATH` is remembered; undefined when there is none to probe. */
export function probeCacheFor(env: NodeJS.ProcessEnv = process.env): ProbeCache | undefined {
  const binary = findOnPath('bwrap', env.PATH);
  if (!binary) return undefined;
  const stats = statSync(binary);
  return {
    file: join(cadreCacheDir(env), 'bwrap-probe.json'),
    key: JSON.stringify([binary, stats.size, stats.mtimeMs, release(), bootId()]),
  };
}

/** Whether a successful probe is remembered for exactly this key. */
export function remembered(cache: ProbeCache): boolean {
  try {
    const saved = JSON.parse(readFileSync(cache.file, 'utf8')) as { key?: unknown; ok?: unknown };
    return saved.key === cache.key && saved.ok === true;
  } catch {
    return false;
  }
}

export function remember(cache: ProbeCache): void {
  try {
    mkdirSync(dirname(cache.file), { recursive: true });
    writeFileSync(cache.file, `${JSON.stringify({ key: cache.key, ok: true })}\n`);
  } catch {
    // No cache directory: the next start probes again.
  }
}

export function forget(cache: ProbeCache | undefined): void {
  if (cache) rmSync(cache.file, { force: true });
}
