import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_REFS_AHEAD, BaseRefs } from '../../src/remote/base-refs.js';
import { gitRun } from '../../src/worktree/git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function repos() {
  const root = mkdtempSync(join(tmpdir(), 'cadre-base-root-'));
  const shared = mkdtempSync(join(tmpdir(), 'cadre-base-shared-'));
  dirs.push(root, shared);
  git(shared, 'init', '-q', '--bare');
  git(root, 'init', '-q');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git(root, 'add', 'a.txt');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'a');
  return { root, shared, sha: git(root, 'rev-parse', 'HEAD') };
}

function baseRefs(shared: string): string {
  return git(shared, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/cadre/base');
}

/** A BaseRefs on real git that records the refspecs of each push it makes. */
function recording(shared: string) {
  const pushes: string[][] = [];
  const bases = new BaseRefs(shared, (cwd, args) => {
    pushes.push(args.slice(3));
    return gitRun(cwd, args);
  });
  return { bases, pushes };
}

describe('BaseRefs', () => {
  it('gives each job a ref of its own, pushed ahead in one push for a fleet, all dropped after the last', async () => {
    const { root, shared, sha } = repos();
    const { bases, pushes } = recording(shared);
    // A single task takes one of the refs pushed ahead; the rest wait for the next tasks, no push more.
    const single = await bases.acquire(root, sha);
    expect(pushes.map((p) => p.length)).toEqual([BASE_REFS_AHEAD]);
    await bases.release(root, sha);
    expect(pushes).toHaveLength(2);
    expect(baseRefs(shared)).toBe('');
    pushes.length = 0;
    // A fleet's first six items ask at once: one push carries their refs and refs for the next ones.
    const first = await Promise.all(Array.from({ length: 6 }, () => bases.acquire(root, sha)));
    expect(pushes[0]).toHaveLength(BASE_REFS_AHEAD);
    expect(new Set(first.map((job) => job.id)).size).toBe(6);
    expect(first.map((job) => job.id)).not.toContain(single.id);
    for (const job of first) expect(job.ref).toBe(`refs/cadre/base/${job.id}`);
    for (const line of baseRefs(shared).split('\n')) expect(line).toMatch(new RegExp(` ${sha}$`));
    // Fewer ready than running: the refs of the next wave (twice the jobs holding one) are pushed while
    // these run, so the next items find theirs without a push of their own.
    expect(pushes.map((p) => p.length)).toEqual([BASE_REFS_AHEAD, 2 * 6]);
    const later: { id: string; ref: string }[] = [];
    for (let i = 0; i < 6; i++) {
      // As a fleet's slots free up: one item reconciled, the next one dispatched.
      await bases.release(root, sha);
      later.push(await bases.acquire(root, sha));
    }
    expect(pushes.map((p) => p.length)).toEqual([BASE_REFS_AHEAD, 2 * 6]);
    expect(new Set([...first, ...later].map((job) => job.id)).size).toBe(12);
    expect(baseRefs(shared).split('\n')).toHaveLength(BASE_REFS_AHEAD + 2 * 6);
    // Five of the last six reconciled: the sixth still needs its ref, so nothing goes yet.
    for (let i = 0; i < 5; i++) await bases.release(root, sha);
    expect(pushes).toHaveLength(2);
    expect(baseRefs(shared)).toContain(later[5]?.ref);
    // The last one: every ref of the commit goes in one push.
    await bases.release(root, sha);
    expect(pushes).toHaveLength(3);
    expect(pushes[2]?.every((refspec) => refspec.startsWith(':refs/cadre/base/'))).toBe(true);
    expect(baseRefs(shared)).toBe('');
  });

  it('hands a job its ref at once, while the push that holds it is under way', async () => {
    const { root, shared, sha } = repos();
    const { bases, pushes } = recording(shared);
    const claims = [bases.take(root, sha), bases.take(root, sha)];
    // Both from the one push under way, not in the shared repository yet.
    expect(pushes).toHaveLength(1);
    expect(claims.map((claim) => claim.landed())).toEqual([false, false]);
    expect(claims[0]?.ref).toBe(`refs/cadre/base/${claims[0]?.id}`);
    await Promise.all(claims.map((claim) => claim.pushed));
    expect(claims.map((claim) => claim.landed())).toEqual([true, true]);
    for (const claim of claims) expect(git(shared, 'rev-parse', claim.ref)).toBe(sha);
    // The next one is pushed already.
    const next = bases.take(root, sha);
    expect(next.landed()).toBe(true);
    for (let i = 0; i < 3; i++) await bases.release(root, sha);
    expect(baseRefs(shared)).toBe('');
  });

  it('a claim whose push fails rejects with git’s reason; released, it drops nothing', async () => {
    const { root, shared } = repos();
    const { bases, pushes } = recording(shared);
    const bad = 'e'.repeat(40);
    const claim = bases.take(root, bad);
    await expect(claim.pushed).rejects.toThrow(/^git push/);
    expect(claim.landed()).toBe(false);
    await bases.release(root, bad);
    expect(pushes).toHaveLength(1);
  });

  it('two roots sharing a repository and a commit never touch each other’s refs', async () => {
    const { root, shared, sha } = repos();
    const one = new BaseRefs(shared);
    const two = new BaseRefs(shared);
    const [a, b] = await Promise.all([one.acquire(root, sha), two.acquire(root, sha)]);
    expect(a.ref).not.toBe(b.ref);
    expect(baseRefs(shared).split('\n')).toHaveLength(2 * BASE_REFS_AHEAD);
    // The first root is done: its refs are gone, the second's job still finds its base.
    await one.release(root, sha);
    expect(baseRefs(shared).split('\n')).toHaveLength(BASE_REFS_AHEAD);
    expect(baseRefs(shared)).not.toContain(a.ref);
    expect(git(shared, 'rev-parse', b.ref)).toBe(sha);
    await two.release(root, sha);
    expect(baseRefs(shared)).toBe('');
  });

  it('a push that fails rejects every job waiting for it with git’s reason and holds nothing', async () => {
    const { root, shared } = repos();
    const bases = new BaseRefs(shared);
    const bad = 'e'.repeat(40);
    const results = await Promise.allSettled([bases.acquire(root, bad), bases.acquire(root, bad)]);
    for (const result of results)
      expect(result).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringMatching(/^git push/) },
      });
    expect(baseRefs(shared)).toBe('');
    // Nothing is held: a release of the failed commit has nothing to drop.
    await bases.release(root, bad);
  });
});
