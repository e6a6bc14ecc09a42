import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git, HARDENING } from './git.js';

/**
 * An isolated writer never writes the shared object store (SPEC 9: only its own branch may change in
 * the shared store; a writable store would let its shell delete or corrupt the user's objects). Its git
 * writes new objects into a private directory in its worktree's admin dir and reads the shared store as
 * an alternate; cadre brings them home through `git index-pack`, which names every object by its
 * content, so nothing the writer planted under a false name reaches the user's store.
 */
export function privateObjectsDir(adminDir: string): string {
  const dir = join(adminDir, 'cadre-objects');
  mkdirSync(join(dir, 'pack'), { recursive: true });
  mkdirSync(join(dir, 'info'), { recursive: true });
  return dir;
}

/** The environment a writer's shell runs git with: new objects private, the shared ones readable. */
export function privateObjectsEnv(commonDir: string, privateDir: string): Record<string, string> {
  return { GIT_OBJECT_DIRECTORY: privateDir, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(commonDir, 'objects') };
}

/** Whether the writer wrote any object (a loose object's fan-out directory or a pack). */
function holdsObjects(privateDir: string): boolean {
  if (!existsSync(privateDir)) return false;
  const loose = readdirSync(privateDir).some((name) => /^[0-9a-f]{2}$/.test(name));
  return loose || readdirSync(join(privateDir, 'pack')).some((name) => name.endsWith('.pack'));
}

/** `git <args>` fed `input`, its stdout piped into `git index-pack --stdin` in the shared store. */
function packInto(
  repoTop: string,
  packEnv: NodeJS.ProcessEnv,
  packArgs: readonly string[],
  input: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const base = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
    const pack = spawn('git', [...HARDENING, ...packArgs], {
      cwd: repoTop,
      env: { ...base, ...packEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const index = spawn('git', [...HARDENING, 'index-pack', '--stdin', '--fix-thin'], {
      cwd: repoTop,
      env: base,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    for (const child of [pack, index]) child.stderr?.on('data', (chunk) => (stderr += chunk));
    pack.stdout.pipe(index.stdin);
    let pending = 2;
    let failed = false;
    const done = (code: number | null) => {
      if (code !== 0) failed = true;
      if (--pending > 0) return;
      if (failed) reject(new Error(`cannot bring the writer's git objects home: ${stderr.trim()}`));
      else resolve();
    };
    pack.on('error', reject);
    index.on('error', reject);
    pack.on('close', done);
    index.on('close', done);
    pack.stdin.end(input);
  });
}

/**
 * Brings the writer's objects into the shared store: with `tip`, what that commit reaches beyond
 * `known` (commits the store already holds); without, every object the writer wrote (its index's
 * blobs too, so a retained worktree loses nothing). Then checks that `tip`, if given, is complete.
 */
export async function importObjects(
  repoTop: string,
  commonDir: string,
  privateDir: string,
  tip?: { commit: string; known: readonly string[] },
): Promise<void> {
  if (holdsObjects(privateDir)) {
    const env = privateObjectsEnv(commonDir, privateDir);
    if (tip) {
      const revs = [tip.commit, ...tip.known.map((c) => `^${c}`)].join('\n');
      await packInto(repoTop, env, ['pack-objects', '--revs', '--stdout', '-q'], `${revs}\n`);
    } else {
      // Only the private directory: what the writer wrote, not the whole shared store again.
      const listed = await git(repoTop, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], {
        GIT_OBJECT_DIRECTORY: privateDir,
        GIT_ALTERNATE_OBJECT_DIRECTORIES: '',
      });
      if (listed !== '') await packInto(repoTop, env, ['pack-objects', '--stdout', '-q'], `${listed}\n`);
    }
  }
  if (tip)
    await git(repoTop, ['rev-list', '--objects', '--quiet', tip.commit, ...tip.known.map((c) => `^${c}`)]);
}

/** The private directory, once its objects are home. */
export function dropPrivateObjects(privateDir: string): void {
  rmSync(privateDir, { recursive: true, force: true });
}
