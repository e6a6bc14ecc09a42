import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { acceptCompletion, completionsFor } from '../../../src/tui/input/completion.js';
import { ProjectFiles, rankPaths } from '../../../src/tui/input/file-index.js';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-files-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('ProjectFiles', () => {
  it('lists project files relative to the root, honouring .gitignore', async () => {
    const root = tree({
      '.gitignore': 'dist/\n*.log\n',
      'src/main.ts': '',
      'src/util/a.ts': '',
      'dist/out.js': '',
      'debug.log': '',
      'README.md': '',
    });
    const files = await new ProjectFiles(root).list();
    expect(files.sort()).toEqual(['.gitignore', 'README.md', 'src/main.ts', 'src/util/a.ts']);
  });

  it('never offers a file outside the project, even through a symlink', async () => {
    const outside = tree({ 'secret.txt': 'x' });
    const root = tree({ 'inside.txt': '' });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(join(root, 'inside.txt'), join(root, 'alias.txt'));
    const files = await new ProjectFiles(root).list();
    expect(files.sort()).toEqual(['alias.txt', 'inside.txt']);
  });

  it('lists again once the listing is stale, so new files appear', async () => {
    let now = 0;
    const root = tree({ 'a.txt': '' });
    const index = new ProjectFiles(root, () => now);
    expect(await index.list()).toEqual(['a.txt']);
    writeFileSync(join(root, 'b.txt'), '');
    expect(await index.list()).toEqual(['a.txt']);
    now += 10_000;
    expect(await index.list()).toEqual(['a.txt', 'b.txt']);
  });
});

describe('rankPaths', () => {
  const paths = [
    'src/tui/app.tsx',
    'src/agent/runtime.ts',
    'test/tui/app.test.tsx',
    'README.md',
    'src/apply.ts',
  ];
  it.each([
    [
      'file name prefixes come first, shorter paths first',
      'app',
      ['src/apply.ts', 'src/tui/app.tsx', 'test/tui/app.test.tsx'],
    ],
    ['a file name prefix beats a path containing the query', 'run', ['src/agent/runtime.ts']],
    ['a path prefix matches', 'src/a', ['src/apply.ts', 'src/agent/runtime.ts']],
    ['characters in order match last', 'rdme', ['README.md']],
    ['nothing matches nothing', 'zzz', []],
  ])('%s', (_name, query, expected) => {
    expect(rankPaths(paths, query).slice(0, expected.length)).toEqual(expected);
  });

  it('caps the number of matches', () => {
    expect(rankPaths(paths, '', 3)).toHaveLength(3);
  });
});

describe('completionsFor', () => {
  const source = {
    complete: (line: string) => ['/agent', '/agents'].filter((c) => c.startsWith(line)),
    commands: () => [
      { name: 'agent', summary: 'switch profile', args: '<name>|off' },
      { name: 'agents', summary: 'list profiles', args: '' },
    ],
    files: () => ['src/a.ts', 'src/a.ts.bak', 'README.md'],
  };
  const at = (text: string) => ({ text, cursor: text.length });

  it('offers slash commands with their arguments and summary', () => {
    expect(completionsFor(at('/ag'), source)).toEqual([
      { kind: 'slash', value: '/agent', detail: '<name>|off  switch profile' },
      { kind: 'slash', value: '/agents', detail: 'list profiles' },
    ]);
  });

  it('offers project files for an @ word, and nothing once the word names a file', () => {
    expect(completionsFor(at('look at @src/a'), source).map((c) => c.value)).toEqual([
      '@src/a.ts',
      '@src/a.ts.bak',
    ]);
    expect(completionsFor(at('look at @src/a.ts'), source)).toEqual([]);
  });

  it('offers nothing for plain text', () => {
    expect(completionsFor(at('hello there'), source)).toEqual([]);
  });

  it('puts a completed command or file in with a space after it', () => {
    expect(acceptCompletion(at('/ag'), { kind: 'slash', value: '/agent', detail: '' })).toEqual(
      at('/agent '),
    );
    expect(acceptCompletion(at('see @rea'), { kind: 'file', value: '@README.md', detail: '' })).toEqual(
      at('see @README.md '),
    );
  });
});
