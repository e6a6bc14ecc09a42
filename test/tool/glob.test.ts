import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFindFilesTool, createGlobTool } from '../../src/tool/glob.js';
import { makeProject, type Project, run } from './fixture.js';

describe('glob and find_files', () => {
  let project: Project;
  beforeEach(() => {
    project = makeProject({
      '.gitignore': 'node_modules/\nbuild\n',
      'README.md': '',
      'src/index.ts': '',
      'src/util/strings.ts': '',
      'src/util/strings.test.ts': '',
      'src/view.tsx': '',
      '.github/workflows/ci.yml': '',
      'node_modules/pkg/index.ts': '',
      'build/out.ts': '',
      'src/build/gen.ts': '',
    });
  });
  afterEach(() => project.cleanup());

  const cases: [string, { pattern: string; path?: string }, string][] = [
    [
      'a recursive glob',
      { pattern: '**/*.ts' },
      'src/index.ts\nsrc/util/strings.test.ts\nsrc/util/strings.ts',
    ],
    ['a slashless glob at any depth', { pattern: '*.tsx' }, 'src/view.tsx'],
    [
      'a glob relative to path',
      { pattern: 'util/*.ts', path: 'src' },
      'src/util/strings.test.ts\nsrc/util/strings.ts',
    ],
    ['brace alternatives', { pattern: '**/*.{md,yml}' }, '.github/workflows/ci.yml\nREADME.md'],
    ['no match', { pattern: '**/*.rs' }, 'No files found.'],
    [
      'root rules inside a subdirectory',
      { pattern: '**/*.ts', path: 'src' },
      'src/index.ts\nsrc/util/strings.test.ts\nsrc/util/strings.ts',
    ],
  ];

  for (const create of [createGlobTool, createFindFilesTool]) {
    it.each(cases)(
      `${create.name} finds files with %s, skipping ignored ones`,
      async (_label, input, expected) => {
        const tool = create(project.root);
        expect(await run(tool, input, project.ctx)).toEqual({ output: expected });
      },
    );
  }

  it('is one tool under two names', () => {
    const glob = createGlobTool(project.root);
    const findFiles = createFindFilesTool(project.root);
    expect([glob.name, findFiles.name]).toEqual(['glob', 'find_files']);
    expect(findFiles.description).toBe(glob.description);
    expect(findFiles.schema).toBe(glob.schema);
  });

  it('caps the results with a note', async () => {
    for (let index = 0; index < 510; index++)
      project.write(`many/f${String(index).padStart(3, '0')}.txt`, '');
    const result = await run(createGlobTool(project.root), { pattern: '*.txt' }, project.ctx);
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(501);
    expect(lines[500]).toBe('[results capped at 500 files; narrow the pattern or path]');
  });

  it.each([
    [{ pattern: '*', path: 'missing' }, 'missing: no such file or directory'],
    [{ pattern: '*', path: 'README.md' }, 'README.md is not a directory'],
  ])('fails for %j', async (input, message) => {
    expect(await run(createGlobTool(project.root), input, project.ctx)).toEqual({
      output: message,
      isError: true,
    });
  });

  it.each([[{}], [{ pattern: '' }], [{ pattern: 3 }]])('schema rejects %j', (input) => {
    expect(createGlobTool(project.root).schema.safeParse(input).success).toBe(false);
  });
});
