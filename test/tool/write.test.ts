import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWriteTool } from '../../src/tool/write.js';
import { makeProject, type Project, run } from './fixture.js';

describe('write', () => {
  let project: Project;
  let write: ReturnType<typeof createWriteTool>;
  beforeEach(() => {
    project = makeProject({ 'existing.txt': 'old', 'dir/keep': '' });
    write = createWriteTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('creates a file and its parent directories', async () => {
    const result = await run(write, { path: 'a/b/c.txt', content: 'héllo\n' }, project.ctx);
    expect(result).toEqual({ output: 'Created a/b/c.txt (7 bytes)' });
    expect(readFileSync(path.join(project.root, 'a/b/c.txt'), 'utf8')).toBe('héllo\n');
  });

  it('overwrites an existing file', async () => {
    expect(await run(write, { path: 'existing.txt', content: '' }, project.ctx)).toEqual({
      output: 'Overwrote existing.txt (0 bytes)',
    });
    expect(readFileSync(path.join(project.root, 'existing.txt'), 'utf8')).toBe('');
  });

  it('refuses to overwrite a directory', async () => {
    expect(await run(write, { path: 'dir', content: 'x' }, project.ctx)).toEqual({
      output: 'dir is a directory',
      isError: true,
    });
  });

  it('fails when a parent is a file', async () => {
    const result = await run(write, { path: 'existing.txt/child', content: 'x' }, project.ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^existing\.txt\/child: /);
  });

  it('writes through a symlink to the real path its subject reported', async () => {
    symlinkSync(project.outside, path.join(project.root, 'out'));
    const subject = write.subject({ path: 'out/new.txt', content: 'x' });
    expect(subject).toEqual({ kind: 'path', paths: [path.join(project.outside, 'new.txt')] });
    await run(write, { path: 'out/new.txt', content: 'x' }, project.ctx);
    expect(readFileSync(path.join(project.outside, 'new.txt'), 'utf8')).toBe('x');
  });

  it.each([[{ path: 'a' }], [{ content: 'x' }], [{ path: '', content: 'x' }], [{ path: 'a', content: 1 }]])(
    'schema rejects %j',
    (input) => {
      expect(write.schema.safeParse(input).success).toBe(false);
    },
  );
});
