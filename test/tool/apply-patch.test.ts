import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../../src/tool/apply-patch.js';
import { makeProject, type Project, run } from './fixture.js';

const ORIGINAL = {
  'src/a.txt': 'alpha\nbeta\ngamma\n',
  'src/b.txt': 'one\ntwo\nthree\n',
  'old.txt': 'remove me\n',
};

const modifyA = `--- a/src/a.txt
+++ b/src/a.txt
@@ -1,3 +1,3 @@
 alpha
-beta
+BETA
 gamma
`;

const modifyB = `--- a/src/b.txt
+++ b/src/b.txt
@@ -1,3 +1,4 @@
 one
 two
+two and a half
 three
`;

const create = `diff --git a/new/c.txt b/new/c.txt
new file mode 100644
--- /dev/null
+++ b/new/c.txt
@@ -0,0 +1,2 @@
+fresh
+file
`;

const remove = `diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-remove me
`;

const badHunkForB = `--- a/src/b.txt
+++ b/src/b.txt
@@ -1,3 +1,3 @@
 one
-not in the file
+x
 three
`;

describe('apply_patch', () => {
  let project: Project;
  let applyPatch: ReturnType<typeof createApplyPatchTool>;
  const contents = (relative: string) => readFileSync(path.join(project.root, relative), 'utf8');
  const snapshot = () =>
    Object.fromEntries(
      [...Object.keys(ORIGINAL), 'new/c.txt'].map((name) => [
        name,
        existsSync(path.join(project.root, name)) ? contents(name) : null,
      ]),
    );
  beforeEach(() => {
    project = makeProject(ORIGINAL);
    applyPatch = createApplyPatchTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('modifies, creates and deletes files from one multi-file patch', async () => {
    const result = await run(applyPatch, { patch: modifyA + modifyB + create + remove }, project.ctx);
    expect(result).toEqual({ output: 'Patch applied:\nM src/a.txt\nM src/b.txt\nA new/c.txt\nD old.txt' });
    expect(snapshot()).toEqual({
      'src/a.txt': 'alpha\nBETA\ngamma\n',
      'src/b.txt': 'one\ntwo\ntwo and a half\nthree\n',
      'old.txt': null,
      'new/c.txt': 'fresh\nfile\n',
    });
  });

  it('accepts names without a/ b/ prefixes', async () => {
    const patch = '--- src/a.txt\n+++ src/a.txt\n@@ -3 +3 @@\n-gamma\n+GAMMA\n';
    expect((await run(applyPatch, { patch }, project.ctx)).isError).toBeUndefined();
    expect(contents('src/a.txt')).toBe('alpha\nbeta\nGAMMA\n');
  });

  it('renames a file with changes', async () => {
    const patch = `diff --git a/src/a.txt b/src/renamed.txt
similarity index 80%
rename from src/a.txt
rename to src/renamed.txt
--- a/src/a.txt
+++ b/src/renamed.txt
@@ -1,3 +1,3 @@
-alpha
+ALPHA
 beta
 gamma
`;
    expect(await run(applyPatch, { patch }, project.ctx)).toEqual({
      output: 'Patch applied:\nR src/a.txt -> src/renamed.txt',
    });
    expect(existsSync(path.join(project.root, 'src/a.txt'))).toBe(false);
    expect(contents('src/renamed.txt')).toBe('ALPHA\nbeta\ngamma\n');
  });

  it.each([
    [
      'a failing hunk in the second file',
      modifyA + badHunkForB,
      /src\/b\.txt: hunk 1 \(@@ -1,3 \+1,3 @@\) does not match/,
    ],
    [
      'a missing file',
      `${modifyA}--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n`,
      /nope\.txt: no such text file/,
    ],
    [
      'creating a file that exists',
      `${modifyA}--- /dev/null\n+++ b/old.txt\n@@ -0,0 +1 @@\n+x\n`,
      /old\.txt already exists/,
    ],
    [
      'a deletion that does not match the whole file',
      `${modifyA}--- a/src/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n`,
      /src\/b\.txt: /,
    ],
    ['a malformed hunk', '--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n-alpha\n', /^malformed patch: /],
    ['text without any file change', 'just some words\n', /^no file changes found in the patch/],
  ])('writes nothing when it meets %s', async (_label, patch, message) => {
    const before = snapshot();
    const result = await run(applyPatch, { patch }, project.ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(message);
    expect(snapshot()).toEqual(before);
  });

  it('restores already written files when a later write fails', async () => {
    // A directory where the patch creates a file passes the checks but fails at write time.
    mkdirSync(path.join(project.root, 'src/blocked.txt'));
    const patch = `${modifyA}--- /dev/null\n+++ b/src/blocked.txt\n@@ -0,0 +1 @@\n+x\n`;
    const result = await run(applyPatch, { patch }, project.ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^patch not applied, no file changed: .*EISDIR/);
    expect(contents('src/a.txt')).toBe(ORIGINAL['src/a.txt']);
  });

  it('lists every touched file, resolved, as its subject', () => {
    symlinkSync(project.outside, path.join(project.root, 'out'));
    const outsidePatch = '--- /dev/null\n+++ b/out/x.txt\n@@ -0,0 +1 @@\n+x\n';
    const parentPatch = '--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n';
    expect(applyPatch.subject({ patch: modifyA + create + remove + outsidePatch + parentPatch })).toEqual({
      kind: 'path',
      paths: [
        path.join(project.root, 'src/a.txt'),
        path.join(project.root, 'new/c.txt'),
        path.join(project.root, 'old.txt'),
        path.join(project.outside, 'x.txt'),
        path.join(path.dirname(project.root), 'escape.txt'),
      ],
    });
  });

  it.each([[{}], [{ patch: '' }], [{ patch: 5 }]])('schema rejects %j', (input) => {
    expect(applyPatch.schema.safeParse(input).success).toBe(false);
  });
});
