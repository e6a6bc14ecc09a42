import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSandbox } from '../../src/sandbox/sandbox.js';
import { finishWriter, planWriter, prepareWriter } from '../../src/subagent/writer.js';
import { writerSandbox } from '../../src/subagent/writer-sandbox.js';
import { bashTool } from '../../src/tool/bash.js';
import { createToolContext } from '../../src/tool/context.js';
import { mergeRetained } from '../../src/worktree/merge.js';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { passThroughSandbox } from '../support/runtime-harness.js';
import { run } from '../tool/fixture.js';

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@t'];

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

describe.runIf(bwrapTestsRun)("an isolated writer under bwrap cannot change the shared store's refs", () => {
  beforeAll(requireBwrap);
  let base: string;
  let repo: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'cadre-writer-store-'));
    repo = join(base, 'repo');
    const home = join(base, 'home');
    mkdirSync(repo);
    mkdirSync(home);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '-A');
    git(repo, ...ID, 'commit', '-qm', 'base');
    git(repo, 'tag', 'v1');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  async function isolatedWriter() {
    const settings = {
      home: join(base, 'home'),
      configDir: join(base, 'home', '.config', 'cadre'),
      readOnly: false,
      network: false,
      pidNamespace: true,
      hide: [],
      envAllow: [],
      keyEnvNames: [],
    };
    const sandbox = writerSandbox(openSandbox(settings, repo, 'bwrap').sandbox);
    expect(sandbox.stagesRefs).toBe(true);
    const planned = await planWriter('worktree', repo, sandbox);
    if (!planned.ok) throw new Error(planned.error);
    const prepared = await prepareWriter(planned.plan, repo, sandbox, {});
    const ctx = createToolContext({ root: prepared.root, sandbox: prepared.sandbox });
    const bash = async (command: string) => (await run(bashTool, { command }, ctx)).output;
    return { prepared, bash, worktree: prepared.worktree as NonNullable<typeof prepared.worktree> };
  }

  it('commits land on its own branch; moves of other refs stay in its view and are reported, not applied', async () => {
    const main = git(repo, 'rev-parse', 'main');
    const { bash, worktree } = await isolatedWriter();
    expect(
      await bash(`echo w > w.txt && git add w.txt && git ${ID.join(' ')} commit -qm w && echo ok`),
    ).toContain('ok');
    await bash('git update-ref refs/heads/main HEAD; git branch sneaky HEAD');
    expect(await bash('git tag evil HEAD')).toMatch(
      /Read-only file system|cannot lock ref|Permission denied/,
    );
    expect(await bash('git config core.hooksPath .husky')).toMatch(/could not lock config file|Read-only/);
    expect(await bash('echo x > "$(git rev-parse --git-common-dir)/hooks/post-merge"')).toContain(
      'Read-only file system',
    );
    const done = await finishWriter(worktree);
    const commit = git(worktree.path, 'rev-parse', 'HEAD');
    expect(git(repo, 'rev-parse', `refs/heads/${worktree.branch}`)).toBe(commit);
    expect(done.state.commits).toEqual([commit]);
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
    expect(git(repo, 'tag', '--list')).toBe('v1');
    expect(git(repo, 'branch', '--list', 'sneaky')).toBe('');
    expect(() => git(repo, 'config', '--get', 'core.hooksPath')).toThrow();
    expect(readdirSync(join(repo, '.git', 'hooks')).some((h) => h === 'post-merge')).toBe(false);
    expect([...done.blocked].sort()).toEqual([
      `refs/heads/main was moved to ${commit} in the writer's view of the shared git store; not applied`,
      `refs/heads/sneaky was created at ${commit} in the writer's view of the shared git store; not applied`,
    ]);
    // Its private copies are gone; the retained worktree is a plain linked worktree again.
    expect(readdirSync(join(repo, '.git', 'worktrees', worktree.name))).not.toContain('cadre-refs-heads');
  });

  it("the parent's own commits made while the writer runs are never undone", async () => {
    const { bash, worktree } = await isolatedWriter();
    expect(
      await bash(`echo w > w.txt && git add w.txt && git ${ID.join(' ')} commit -qm w && echo ok`),
    ).toContain('ok');
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    git(repo, 'add', 'b.txt');
    git(repo, ...ID, 'commit', '-qm', 'parent work');
    git(repo, 'branch', 'feature');
    const parentHead = git(repo, 'rev-parse', 'main');
    const done = await finishWriter(worktree);
    expect(git(repo, 'rev-parse', 'main')).toBe(parentHead);
    expect(git(repo, 'rev-parse', 'feature')).toBe(parentHead);
    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('parent work');
    expect(done.blocked).toEqual([]);
    expect(done.state.commits).toHaveLength(1);
  });

  it("cadre's own git never follows a worktree's .git file the writer rewrote", async () => {
    const { bash, worktree } = await isolatedWriter();
    const marker = join(base, 'filter-ran');
    const fake = [
      'env -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git init -q fake && mv fake/.git fakegit',
      `git config -f fakegit/config filter.x.clean 'touch ${marker}; cat'`,
      `echo '* filter=x' > .gitattributes && echo gitdir: fakegit > .git && touch a.txt`,
    ].join(' && ');
    await bash(fake);
    const done = await finishWriter(worktree);
    expect(existsSync(marker)).toBe(false);
    expect(done.removed).toBe(false);
    expect(done.state.changedFiles).toContain('.gitattributes');
  });

  it("a writer's shell cannot delete or corrupt the shared objects; its commits still land on its branch", async () => {
    const { bash, worktree } = await isolatedWriter();
    const blob = git(repo, 'rev-parse', 'HEAD:a.txt');
    const object = `objects/${blob.slice(0, 2)}/${blob.slice(2)}`;
    const common = '"$(git rev-parse --git-common-dir)"';
    expect(
      await bash(`rm -f ${common}/${object}; echo junk > ${common}/${object}; ls ${common}/${object}`),
    ).toMatch(/Read-only file system|Permission denied/);
    expect(
      await bash(`rm -rf ${common}/objects/pack ${common}/objects/${blob.slice(0, 2)} 2>&1 | head -1`),
    ).toMatch(/Read-only file system|Permission denied/);
    expect(
      await bash(`echo w > w.txt && git add w.txt && git ${ID.join(' ')} commit -qm w && git gc -q; echo ok`),
    ).toContain('ok');
    // Its own view: the real branch has not followed yet (no tool wrapper here).
    const commit = /[0-9a-f]{40}/.exec(await bash('git rev-parse HEAD'))?.[0];
    const done = await finishWriter(worktree);
    expect(done.blocked).toEqual([]);
    expect(git(repo, 'cat-file', '-p', blob)).toBe('a');
    expect(git(repo, 'rev-parse', `refs/heads/${worktree.branch}`)).toBe(commit);
    expect(git(repo, 'show', `${commit}:w.txt`)).toBe('w');
    git(repo, 'fsck', '--no-dangling', '--strict');
    expect(existsSync(join(repo, '.git', 'worktrees', worktree.name, 'cadre-objects'))).toBe(false);
  });
});

describe("an isolated writer without bwrap (sandbox: none) never undoes the parent's commits", () => {
  let base: string;
  let repo: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'cadre-writer-none-'));
    repo = join(base, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '-A');
    git(repo, ...ID, 'commit', '-qm', 'base');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("the parent commits while the writer runs: its commit survives, the writer's is retained and merges", async () => {
    const planned = await planWriter('worktree', repo, passThroughSandbox);
    if (!planned.ok) throw new Error(planned.error);
    const prepared = await prepareWriter(planned.plan, repo, passThroughSandbox, {});
    const worktree = prepared.worktree as NonNullable<typeof prepared.worktree>;
    const ctx = createToolContext({ root: prepared.root, sandbox: prepared.sandbox });
    const bash = async (command: string) => (await run(bashTool, { command }, ctx)).output;
    expect(
      await bash(`echo w > w.txt && git add w.txt && git ${ID.join(' ')} commit -qm writer && echo ok`),
    ).toContain('ok');
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    git(repo, 'add', 'b.txt');
    git(repo, ...ID, 'commit', '-qm', 'parent work');
    git(repo, 'tag', 'parent-tag');
    const parentHead = git(repo, 'rev-parse', 'main');
    const writerCommit = git(worktree.path, 'rev-parse', 'HEAD');
    const done = await finishWriter(worktree);
    expect(done.blocked).toEqual([]);
    expect(git(repo, 'rev-parse', 'main')).toBe(parentHead);
    expect(git(repo, 'rev-parse', 'parent-tag')).toBe(parentHead);
    expect(done.removed).toBe(false);
    expect(done.state.commits).toEqual([writerCommit]);
    expect(git(repo, 'rev-parse', `refs/heads/${worktree.branch}`)).toBe(writerCommit);
    const merged = await mergeRetained(repo, {
      taskId: 't1',
      description: 'writer',
      branch: worktree.branch,
      path: worktree.path,
      base: worktree.base,
      repoRoot: repo,
    });
    expect(merged.commits).toBe(1);
    expect(git(repo, 'log', '--format=%s', '-3', 'main').split('\n')).toContain('parent work');
    expect(readFileSync(join(repo, 'w.txt'), 'utf8')).toBe('w\n');
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('b\n');
  });
});
