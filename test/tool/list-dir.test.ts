import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createListDirTool } from '../../src/tool/list-dir.js';
import { makeProject, type Project, run } from './fixture.js';

describe('list_dir', () => {
  let project: Project;
  let listDir: ReturnType<typeof createListDirTool>;
  beforeEach(() => {
    project = makeProject({ 'b.txt': 'hello', 'a.md': '', 'src/x.ts': '', '.env': 'K=V' });
    mkdirSync(path.join(project.root, 'empty'));
    symlinkSync('b.txt', path.join(project.root, 'link'));
    listDir = createListDirTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('lists directories first, then files with sizes and links with targets', async () => {
    expect(await run(listDir, {}, project.ctx)).toEqual({
      output: ['empty/', 'src/', '.env (3 bytes)', 'a.md (0 bytes)', 'b.txt (5 bytes)', 'link -> b.txt'].join(
        '\n',
      ),
    });
  });

  it.each([
    [{ path: 'src' }, { output: 'x.ts (0 bytes)' }],
    [{ path: 'empty' }, { output: 'empty is empty' }],
    [{ path: 'missing' }, { output: 'missing: no such file or directory', isError: true }],
    [{ path: 'b.txt' }, { output: 'b.txt: not a directory', isError: true }],
  ])('handles %j', async (input, expected) => {
    expect(await run(listDir, input, project.ctx)).toEqual(expected);
  });

  it('reports the resolved directory as its subject, outside paths included', () => {
    expect(listDir.subject({})).toEqual({ kind: 'path', paths: [project.root] });
    expect(listDir.subject({ path: '../outside' })).toEqual({ kind: 'path', paths: [project.outside] });
    expect(listDir.subject({ path: '/' })).toEqual({ kind: 'path', paths: ['/'] });
  });

  it.each([[{ path: '' }], [{ path: 1 }]])('schema rejects %j', (input) => {
    expect(listDir.schema.safeParse(input).success).toBe(false);
  });
});
