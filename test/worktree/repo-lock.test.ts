import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockRepo, REPO_LOCK_FILE } from '../../src/worktree/repo-lock.js';

const GIT_TS = fileURLToPath(new URL('../../src/worktree/git.ts', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cadre-repo-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A cadre-like process: `rounds` times it takes the repository lock (withRepoLock), logs its entry, does a
 * read-modify-write of a counter with a git call in between (a window for a lost update), logs its exit.
 */
function worker(name: string, rounds: number): Promise<void> {
  const code = `
    import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
    import { execFileSync } from 'node:child_process';
    import { withRepoLock } from ${JSON.stringify(GIT_TS)};
    const dir = ${JSON.stringify(dir)};
    for (let i = 0; i < ${rounds}; i++) {
      await withRepoLock(dir, async () => {
        appendFileSync(dir + '/log', 'in ${name}\\n');
        const n = Number(readFileSync(dir + '/counter', 'utf8'));
        execFileSync('git', ['--version']);
        writeFileSync(dir + '/counter', String(n + 1));
        appendFileSync(dir + '/log', 'out ${name}\\n');
      });
    }`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', code],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
      (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
    );
  });
}

describe('the cross-process repository lock', () => {
  it('two cadre processes on one repository never run their git work at the same time', async () => {
    writeFileSync(join(dir, 'counter'), '0');
    await Promise.all([worker('a', 15), worker('b', 15)]);
    expect(readFileSync(join(dir, 'counter'), 'utf8')).toBe('30');
    const log = readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');
    expect(log).toHaveLength(60);
    for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i].replace('in', 'out'));
    expect(() => readFileSync(join(dir, REPO_LOCK_FILE))).toThrow();
  }, 60_000);

  it('a lock left by a process that is gone is broken at once', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(dir, REPO_LOCK_FILE), JSON.stringify({ pid: gone, host: hostname(), at: 0 }));
    const release = await lockRepo(dir, { timeoutMs: 0 });
    expect(JSON.parse(readFileSync(join(dir, REPO_LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('a lock older than the stale age is broken even if its pid lives', async () => {
    writeFileSync(join(dir, REPO_LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), at: 0 }));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, REPO_LOCK_FILE), old, old);
    const release = await lockRepo(dir, { timeoutMs: 0, staleMs: 60_000 });
    release();
  });

  it('a live holder past the timeout is named in the error, and its lock is left alone', async () => {
    const holder = JSON.stringify({ pid: process.pid, host: hostname(), at: 0 });
    writeFileSync(join(dir, REPO_LOCK_FILE), holder);
    await expect(lockRepo(dir, { timeoutMs: 0 })).rejects.toThrow(
      `another cadre process (pid ${process.pid} on ${hostname()}) has held ${join(dir, REPO_LOCK_FILE)}`,
    );
    expect(readFileSync(join(dir, REPO_LOCK_FILE), 'utf8')).toBe(holder);
  });

  it('release is idempotent and frees the lock for the next taker', async () => {
    const release = await lockRepo(dir);
    release();
    release();
    const again = await lockRepo(dir, { timeoutMs: 0 });
    again();
  });
});
