import { closeSync, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SandboxPolicy, WriteGrant } from './policy.js';

/** What the backend needs to know about the host's filesystem when a command starts. */
export interface HostFs {
  /** `dir`, `file` (anything that is not a directory) or undefined when missing. */
  kind(path: string): 'dir' | 'file' | undefined;
  /** The path with symlinks resolved (mount targets must be real paths). */
  real(path: string): string;
}

export const hostFs: HostFs = {
  kind(path) {
    try {
      // Most of the policy's places are missing on a given machine: no exception built for each, per call.
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats === undefined) return undefined;
      return stats.isDirectory() ? 'dir' : 'file';
    } catch {
      return undefined;
    }
  },
  real(path) {
    try {
      return realpathSync.native(path);
    } catch {
      return path;
    }
  },
};

export interface SpawnSpec {
  file: string;
  args: string[];
}

/**
 * The host-side preparation before a command starts: caches that must exist, and granted outside files
 * that do not exist yet (created empty, so the approved write has a file to land on; a directory cannot be
 * bound before it exists, and binding its parent would grant more than was approved).
 */
export function prepareHost(policy: SandboxPolicy, grants: readonly WriteGrant[], fs: HostFs = hostFs): void {
  for (const dir of policy.createMissing) {
    if (fs.kind(dir) === undefined) mkdirSync(dir, { recursive: true });
  }
  for (const { path, directory } of grants) {
    if (directory || fs.kind(path) !== undefined || fs.kind(dirname(path)) !== 'dir') continue;
    try {
      closeSync(openSync(path, 'a'));
    } catch {
      // The command will meet the same refusal and report it.
    }
  }
}

/**
 * The sandbox as bwrap arguments: the whole filesystem read-only, then (in this order, later mounts
 * winning) a private /tmp, the writable places and this call's grants, private copies bound over shared
 * directories, read-only places inside them, and the hidden ones emptied. Missing paths are skipped, so
 * the list depends on what exists now (a warm server is keyed by it).
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  grants: readonly WriteGrant[] = [],
  fs: HostFs = hostFs,
): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev'];
  if (policy.pidNamespace) args.push('--unshare-pid', '--proc', '/proc');
  if (policy.privateTmp) args.push('--tmpfs', '/tmp');
  const existing = (paths: readonly string[]) => [
    ...new Set(paths.filter((p) => fs.kind(p) !== undefined).map((p) => fs.real(p))),
  ];
  const writable = existing([...policy.writable, ...grants.map((g) => g.path)]);
  const mounts = policy.mounts.filter((m) => fs.kind(m.source) === 'dir' && fs.kind(m.target) === 'dir');
  const inner = [...writable, ...mounts.map((m) => fs.real(m.target))];
  // A read-only place holding writable ones (a git store under the private /tmp) is bound first, so it
  // is visible and they stay writable inside it; the others go on top of the writable places.
  const holds = (path: string) => inner.some((p) => p !== path && p.startsWith(`${path}/`));
  const readOnly = existing(policy.readOnly);
  for (const path of readOnly.filter(holds)) args.push('--ro-bind', path, path);
  for (const path of writable) args.push('--bind', path, path);
  for (const { source, target } of mounts) args.push('--bind', fs.real(source), fs.real(target));
  for (const path of readOnly.filter((p) => !holds(p))) args.push('--ro-bind', path, path);
  for (const path of existing(policy.hidden)) {
    if (fs.kind(path) === 'dir') args.push('--tmpfs', path, '--remount-ro', path);
    // Bind mounts are nodev, so /dev/null needs a device bind to stay readable: it reads empty.
    else args.push('--dev-bind', '/dev/null', path);
  }
  if (!policy.network) args.push('--unshare-net');
  return args;
}

/** `bwrap … bash -c command` for one call. */
export function bwrapSpawn(
  policy: SandboxPolicy,
  command: string,
  cwd: string,
  grants: readonly WriteGrant[] = [],
  fs: HostFs = hostFs,
): SpawnSpec {
  const args = bwrapArgs(policy, grants, fs);
  args.push('--die-with-parent', '--chdir', cwd, '--', 'bash', '-c', command);
  return { file: 'bwrap', args };
}
