import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** Symlink hops followed through dangling links before giving up (mirrors the kernel's ELOOP bound). */
const MAX_LINK_HOPS = 40;

/**
 * Resolves a path given by the user or model against the project root: absolute, `..` normalised,
 * `~/` expanded, and every symlink resolved — including the nearest existing ancestor of a path that
 * does not exist yet and dangling links — so the permission engine sees where a call really lands.
 */
export function resolveToolPath(root: string, input: string): string {
  const expanded = input === '~' || input.startsWith('~/') ? path.join(homedir(), input.slice(1)) : input;
  return realpathLenient(path.resolve(root, expanded), MAX_LINK_HOPS);
}

function realpathLenient(absolute: string, hopsLeft: number): string {
  try {
    // One realpath(3) call; the JS version lstats every component of the path (issue 17).
    return realpathSync.native(absolute);
  } catch {
    // Falls through: the path (or a link on it) does not exist yet.
  }
  const linkTarget = danglingLinkTarget(absolute);
  if (linkTarget !== undefined && hopsLeft > 0) {
    return realpathLenient(path.resolve(path.dirname(absolute), linkTarget), hopsLeft - 1);
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(realpathLenient(parent, hopsLeft), path.basename(absolute));
}

function danglingLinkTarget(absolute: string): string | undefined {
  try {
    return lstatSync(absolute).isSymbolicLink() ? readlinkSync(absolute) : undefined;
  } catch {
    return undefined;
  }
}

export function isInside(root: string, absolute: string): boolean {
  const relative = path.relative(root, absolute);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** How a path is shown to the model: relative inside the root, absolute outside it. */
export function displayPath(root: string, absolute: string): string {
  if (!isInside(root, absolute)) return absolute;
  return path.relative(root, absolute) || '.';
}
