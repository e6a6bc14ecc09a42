import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReadTool } from '../../src/tool/read.js';
import { makeProject, type Project, run } from './fixture.js';

const numbered = (count: number) =>
  Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');

describe('read', () => {
  let project: Project;
  let read: ReturnType<typeof createReadTool>;
  beforeEach(() => {
    project = makeProject({
      'small.txt': 'alpha\nbeta\ngamma\n',
      'crlf.txt': 'one\r\ntwo\r\n',
      'long.txt': `${numbered(2500)}\n`,
      'empty.txt': '',
      'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]),
      'dir/inner.txt': 'x',
    });
    read = createReadTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('returns line-numbered content', async () => {
    const result = await run(read, { path: 'small.txt' }, project.ctx);
    expect(result).toEqual({ output: '     1\talpha\n     2\tbeta\n     3\tgamma' });
  });

  it('strips CRLF line endings from the shown lines', async () => {
    const result = await run(read, { path: 'crlf.txt' }, project.ctx);
    expect(result.output).toBe('     1\tone\n     2\ttwo');
  });

  it.each([
    [{ offset: 2 }, '     2\tbeta\n     3\tgamma'],
    [{ offset: 2, limit: 1 }, '     2\tbeta\n[showing lines 2-2 of 3; read again with offset=3]'],
    [{ limit: 2 }, '     1\talpha\n     2\tbeta\n[showing lines 1-2 of 3; read again with offset=3]'],
  ])('pages with %j', async (paging, expected) => {
    const result = await run(read, { path: 'small.txt', ...paging }, project.ctx);
    expect(result.output).toBe(expected);
  });

  it('pages a long file by default and says how to continue', async () => {
    const result = await run(read, { path: 'long.txt' }, project.ctx);
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe('  2000\tline 2000');
    expect(lines[2000]).toBe('[showing lines 1-2000 of 2500; read again with offset=2001]');
    const rest = await run(read, { path: 'long.txt', offset: 2001 }, project.ctx);
    expect(rest.output.split('\n')).toHaveLength(500);
  });

  it('truncates a very long line', async () => {
    project.write('wide.txt', 'x'.repeat(5000));
    const result = await run(read, { path: 'wide.txt' }, project.ctx);
    expect(result.output).toBe(`     1\t${'x'.repeat(2000)}… [line truncated]`);
  });

  it('says a file is empty', async () => {
    expect(await run(read, { path: 'empty.txt' }, project.ctx)).toEqual({ output: 'empty.txt is empty' });
  });

  it.each([
    ['a missing file', { path: 'nope.txt' }, 'nope.txt: no such file or directory'],
    ['a binary file', { path: 'image.png' }, 'image.png is a binary file (7 bytes); not shown'],
    ['a directory', { path: 'dir' }, 'dir is a directory; use list_dir to see its entries'],
    [
      'an offset past the end',
      { path: 'small.txt', offset: 10 },
      'offset 10 is past the end of small.txt (3 lines)',
    ],
  ])('refuses %s', async (_label, input, message) => {
    expect(await run(read, input, project.ctx)).toEqual({ output: message, isError: true });
  });

  it.each([
    [{}],
    [{ path: '' }],
    [{ path: 'a', offset: 0 }],
    [{ path: 'a', offset: 1.5 }],
    [{ path: 'a', limit: 0 }],
    [{ path: 'a', limit: 100_000 }],
    [{ path: 42 }],
  ])('schema rejects %j', (input) => {
    expect(read.schema.safeParse(input).success).toBe(false);
  });

  it('reads through a symlink at its real target, which subject() reports', async () => {
    project.write('../outside/secret.txt', 'top secret\n');
    symlinkSync(path.join(project.outside, 'secret.txt'), path.join(project.root, 'link'));
    expect(read.subject({ path: 'link' })).toEqual({
      kind: 'path',
      paths: [path.join(project.outside, 'secret.txt')],
    });
    expect((await run(read, { path: 'link' }, project.ctx)).output).toBe('     1\ttop secret');
  });
});
