import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

/** Expands `~/` and resolves `path` against `base`, without touching the filesystem. */
export function absolutePath(path: string, base: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/**
 * `/proc/<pid>/…` and `/dev/fd/…` name other processes' files and directories (`/proc/self/cwd`,
 * `/proc/self/root`, an open descriptor): resolving them here would describe cadre's own process, not the
 * shell's, so they are kept as written — always outside the project.
 */
const PROCESS_PATHS = /^\/(proc|dev\/fd|dev\/std(in|out|err))(\/|$)/;

/**
 * The real path of `path`: symlinks resolved for the nearest existing ancestor, the missing rest
 * appended (a file about to be created lands where its real parent directory is). A path that is, or
 * whose symlinks lead, into a process path is returned as that process path.
 */
export function realPath(path: string): string {
  const missing: string[] = [];
  const absolute = resolve(path);
  if (PROCESS_PATHS.test(absolute)) return absolute;
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      if (PROCESS_PATHS.test(real)) return real;
      // Only a path whose real form differs went through a symlink worth walking.
      const through = real === current ? undefined : viaProcessPath(absolute);
      if (through) return through;
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing.push(current.slice(parent.length).replace(/^[\\/]/, ''));
      current = parent;
    }
  }
}

/** True when `path` is `root` or below it. Both must be absolute and normalised. */
export function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * A symlink inside `path` that points into a process path (`link -> /proc/self/cwd`): realpath would follow
 * it through cadre's own process. Each component is checked with lstat; found, the process path is returned.
 */
function viaProcessPath(path: string): string | undefined {
  let current = '/';
  const parts = path.split('/').filter((p) => p !== '');
  for (let index = 0, hops = 0; index < parts.length; index++) {
    const next = join(current, parts[index]);
    let target: string;
    try {
      if (!lstatSync(next).isSymbolicLink()) {
        current = next;
        continue;
      }
      target = readlinkSync(next);
    } catch {
      return undefined;
    }
    if (++hops > 40) return undefined;
    const resolved = resolve(current, target);
    if (PROCESS_PATHS.test(resolved)) return join(resolved, ...parts.slice(index + 1));
    parts.splice(0, index + 1, ...resolved.split('/').filter((p) => p !== ''));
    current = '/';
    index = -1;
  }
  return undefined;
}
