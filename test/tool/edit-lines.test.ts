import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditLinesTool } from '../../src/tool/edit-lines.js';
import { makeProject, type Project, run } from './fixture.js';

describe('edit_lines', () => {
  let project: Project;
  let editLines: ReturnType<typeof createEditLinesTool>;
  const contents = (relative: string) => readFileSync(path.join(project.root, relative), 'utf8');
  beforeEach(() => {
    project = makeProject({
      'f.txt': 'one\ntwo\nthree\nfour\n',
      'crlf.txt': 'a\r\nb\r\n',
      'no-eol.txt': 'x\ny',
      'empty.txt': '',
    });
    editLines = createEditLinesTool(project.root);
  });
  afterEach(() => project.cleanup());

  it.each([
    [
      'replaces a range',
      { start_line: 2, end_line: 3, content: 'TWO\nTHREE\nMORE' },
      'one\nTWO\nTHREE\nMORE\nfour\n',
    ],
    ['replaces one line', { start_line: 1, end_line: 1, content: 'ONE\n' }, 'ONE\ntwo\nthree\nfour\n'],
    ['deletes lines with empty content', { start_line: 2, end_line: 4, content: '' }, 'one\n'],
    [
      'inserts before a line',
      { start_line: 2, end_line: 1, content: 'inserted' },
      'one\ninserted\ntwo\nthree\nfour\n',
    ],
    [
      'appends after the last line',
      { start_line: 5, end_line: 4, content: 'five' },
      'one\ntwo\nthree\nfour\nfive\n',
    ],
  ])('%s', async (_label, range, expected) => {
    const result = await run(editLines, { path: 'f.txt', ...range }, project.ctx);
    expect(result.isError).toBeUndefined();
    expect(contents('f.txt')).toBe(expected);
  });

  it('describes the change', async () => {
    expect(
      await run(editLines, { path: 'f.txt', start_line: 2, end_line: 3, content: 'x' }, project.ctx),
    ).toEqual({
      output: 'f.txt: replaced lines 2-3 with 1 line; it now has 3 lines',
    });
    expect(
      await run(editLines, { path: 'f.txt', start_line: 1, end_line: 0, content: 'a\nb' }, project.ctx),
    ).toEqual({ output: 'f.txt: inserted 2 lines before line 1; it now has 5 lines' });
  });

  it.each([
    ['keeps CRLF endings', 'crlf.txt', { start_line: 2, end_line: 2, content: 'B' }, 'a\r\nB\r\n'],
    ['keeps a missing final newline', 'no-eol.txt', { start_line: 1, end_line: 1, content: 'X' }, 'X\ny'],
    ['fills an empty file', 'empty.txt', { start_line: 1, end_line: 0, content: 'first' }, 'first\n'],
  ])('%s', async (_label, file, range, expected) => {
    await run(editLines, { path: file, ...range }, project.ctx);
    expect(contents(file)).toBe(expected);
  });

  it.each([
    [{ start_line: 3, end_line: 1 }, 'bad line range 3-1: end_line is before start_line'],
    [{ start_line: 2, end_line: 9 }, 'bad line range 2-9: f.txt has 4 lines'],
    [{ start_line: 7, end_line: 6 }, 'bad line range 7-6: f.txt has 4 lines'],
  ])('rejects the range %j and leaves the file alone', async (range, message) => {
    expect(await run(editLines, { path: 'f.txt', content: 'x', ...range }, project.ctx)).toEqual({
      output: message,
      isError: true,
    });
    expect(contents('f.txt')).toBe('one\ntwo\nthree\nfour\n');
  });

  it('fails on a missing file', async () => {
    expect(
      await run(editLines, { path: 'missing.txt', start_line: 1, end_line: 1, content: '' }, project.ctx),
    ).toEqual({ output: 'missing.txt: no such file or directory', isError: true });
  });

  it.each([
    [{ path: 'f.txt', start_line: 0, end_line: 1, content: '' }],
    [{ path: 'f.txt', start_line: 1, end_line: -1, content: '' }],
    [{ path: 'f.txt', start_line: 1.5, end_line: 2, content: '' }],
    [{ path: 'f.txt', start_line: 1, end_line: 2 }],
  ])('schema rejects %j', (input) => {
    expect(editLines.schema.safeParse(input).success).toBe(false);
  });
});
