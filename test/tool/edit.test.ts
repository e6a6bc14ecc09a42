import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditTool } from '../../src/tool/edit.js';
import { makeProject, type Project, run } from './fixture.js';

describe('edit', () => {
  let project: Project;
  let edit: ReturnType<typeof createEditTool>;
  const contents = (relative: string) => readFileSync(path.join(project.root, relative), 'utf8');
  beforeEach(() => {
    project = makeProject({
      'code.ts': 'const a = 1;\nconst b = 1;\nconst c = 2;\n',
      'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
      'bin.dat': new Uint8Array([1, 0, 2]),
    });
    edit = createEditTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('replaces a unique match', async () => {
    const result = await run(
      edit,
      { path: 'code.ts', old_string: 'c = 2', new_string: 'c = 3' },
      project.ctx,
    );
    expect(result).toEqual({ output: 'Replaced 1 occurrence in code.ts' });
    expect(contents('code.ts')).toBe('const a = 1;\nconst b = 1;\nconst c = 3;\n');
  });

  it('replaces every match with replace_all and says how many', async () => {
    const input = { path: 'code.ts', old_string: '= 1', new_string: '= $1', replace_all: true };
    expect(await run(edit, input, project.ctx)).toEqual({ output: 'Replaced 2 occurrences in code.ts' });
    expect(contents('code.ts')).toBe('const a = $1;\nconst b = $1;\nconst c = 2;\n');
  });

  it('matches LF text in a CRLF file and keeps CRLF', async () => {
    const input = { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' };
    expect(await run(edit, input, project.ctx)).toEqual({ output: 'Replaced 1 occurrence in crlf.txt' });
    expect(contents('crlf.txt')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it.each([
    [
      'a non-unique match',
      { path: 'code.ts', old_string: '= 1', new_string: '= 9' },
      'old_string matches 2 times in code.ts; add surrounding context to make it unique, or set replace_all',
    ],
    [
      'no match',
      { path: 'code.ts', old_string: 'missing', new_string: 'x' },
      'old_string not found in code.ts; read the file and copy the text exactly',
    ],
    [
      'identical strings',
      { path: 'code.ts', old_string: 'a', new_string: 'a' },
      'old_string and new_string are identical; nothing to do',
    ],
    [
      'a missing file',
      { path: 'nope.ts', old_string: 'a', new_string: 'b' },
      'nope.ts: no such file or directory',
    ],
    [
      'a binary file',
      { path: 'bin.dat', old_string: 'a', new_string: 'b' },
      'bin.dat is a binary file; not edited',
    ],
  ])('fails on %s and leaves the file alone', async (_label, input, message) => {
    const before = contents('code.ts');
    expect(await run(edit, input, project.ctx)).toEqual({ output: message, isError: true });
    expect(contents('code.ts')).toBe(before);
  });

  it.each([
    [{ path: 'a', old_string: '', new_string: 'x' }],
    [{ path: 'a', old_string: 'x' }],
    [{ path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' }],
  ])('schema rejects %j', (input) => {
    expect(edit.schema.safeParse(input).success).toBe(false);
  });

  it('resolves ../ in its subject to the real outside path', () => {
    expect(edit.subject({ path: '../outside/f', old_string: 'a', new_string: 'b' })).toEqual({
      kind: 'path',
      paths: [path.join(project.outside, 'f')],
    });
  });
});
