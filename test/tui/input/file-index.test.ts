import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
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
