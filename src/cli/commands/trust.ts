import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, configDir, findProjectRoot } from '../../config/load.js';
import { isTrustedRoot, realRoot } from '../../config/trust.js';
import {
  addTrustedRoot,
  globalConfigFile,
  readTrustedRoots,
  removeTrustedRoot,
} from '../../config/trust-store.js';
import { UsageError } from '../errors.js';

export interface TrustOptions {
  revoke?: boolean;
  list?: boolean;
  cwd?: string;
}

interface Io {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: { write(s: string): unknown };
}

/** PATH as a real directory, or the project root of where the user stands. */
function rootOf(path: string | undefined, cwd: string): string {
  if (path === undefined) return realRoot(findProjectRoot(cwd));
  const absolute = resolve(cwd, path);
  const stats = statSync(absolute, { throwIfNoEntry: false });
  if (!stats) throw new UsageError(`${path}: no such directory`);
  if (!stats.isDirectory()) throw new UsageError(`${path}: not a directory (trust names a project folder)`);
  return realRoot(absolute);
}

/**
 * `cadre trust [PATH]`, `cadre trust --revoke [PATH]`, `cadre trust --list` (issue 15 point 6d): the
 * trusted roots in the global config. A trusted project's own config may start MCP servers and set the
 * keys that loosen the walls. Returns the exit code.
 */
export function runTrust(path: string | undefined, options: TrustOptions, io: Io): number {
  const file = globalConfigFile(configDir(io.env));
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  if (options.list) {
    if (path !== undefined || options.revoke) throw new UsageError('--list takes no path and no --revoke');
    const { roots } = readTrustedRoots(file);
    if (roots.length === 0) io.stdout.write(`no trusted projects (${file})\n`);
    for (const root of roots) {
      const missing = statSync(root, { throwIfNoEntry: false })?.isDirectory() ? '' : ' (missing)';
      io.stdout.write(`${root}${missing}\n`);
    }
    return 0;
  }
  const root = rootOf(path, cwd);
  if (options.revoke) {
    const removed = removeTrustedRoot(file, root);
    const { roots } = readTrustedRoots(file);
    const through = roots.find((listed) => isTrustedRoot(root, [listed]));
    if (removed.length > 0) io.stdout.write(`no longer trusted: ${root} (removed from ${file})\n`);
    if (through !== undefined) {
      io.stdout.write(
        `${root} is still trusted through ${through}; revoke that with cadre trust --revoke ${through}\n`,
      );
      return 1;
    }
    if (removed.length === 0) io.stdout.write(`${root} was not trusted; nothing changed\n`);
    return 0;
  }
  const { roots } = readTrustedRoots(file);
  const through = roots.find((listed) => isTrustedRoot(root, [listed]));
  if (through !== undefined) {
    const via = realRoot(through) === root ? '' : ` through ${through}`;
    io.stdout.write(`${root} is already trusted${via} (${file})\n`);
    return 0;
  }
  addTrustedRoot(file, root);
  io.stdout.write(
    `trusted: ${root} (saved in ${file}); its own config may now start MCP servers and set sandbox, workers and provider keys\n`,
  );
  return 0;
}

export async function runTrustCommand(path: string | undefined, options: TrustOptions): Promise<number> {
  try {
    return runTrust(path, options, { env: process.env, cwd: process.cwd(), stdout: process.stdout });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
