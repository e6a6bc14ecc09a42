import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BaseRefs } from '../../src/remote/base-refs.js';

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

describe('BaseRefs', () => {
  it('pushes a commit once for all the tasks starting from it, and drops it after the last', async () => {
    const { root, shared, sha } = repos();
    const bases = new BaseRefs(shared);
    const [first, second] = await Promise.all([bases.acquire(root, sha), bases.acquire(root, sha)]);
    expect(first).toBe(`refs/cadre/base/${sha}`);
    expect(second).toBe(first);
    expect(baseRefs(shared)).toBe(`${first} ${sha}`);
    // One task still starts from it: nothing is dropped.
    bases.release(root, sha);
    expect(baseRefs(shared)).toBe(`${first} ${sha}`);
    // The last one ended: dropped; a task after it pushes the commit again, after the drop.
    bases.release(root, sha);
    await expect.poll(() => baseRefs(shared)).toBe('');
    expect(await bases.acquire(root, sha)).toBe(first);
    expect(baseRefs(shared)).toBe(`${first} ${sha}`);
  });

  it('a push that fails rejects with git’s reason and holds nothing', async () => {
    const { root, shared } = repos();
    const bases = new BaseRefs(shared);
    await expect(bases.acquire(root, 'e'.repeat(40))).rejects.toThrow(/git push/);
    expect(git(shared, 'for-each-ref', 'refs/cadre/base')).toBe('');
  });
});
