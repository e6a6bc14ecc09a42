import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrepTool } from '../../src/tool/grep.js';
import { makeProject, type Project, run } from './fixture.js';

describe('grep', () => {
  let project: Project;
  let grep: ReturnType<typeof createGrepTool>;
  beforeEach(() => {
    project = makeProject({
      '.gitignore': 'dist/\n*.log\n',
      'src/a.ts': 'const needle = 1;\nconst other = 2;\n',
      'src/b.js': 'let Needle = 3;\n',
      'src/nested/.gitignore': 'secret.ts\n!keep.log\n',
      'src/nested/secret.ts': 'needle hidden by nested ignore\n',
      'src/nested/keep.log': 'needle kept by negation\n',
      'dist/out.js': 'needle in build output\n',
      'debug.log': 'needle in a log\n',
      '.git/config': 'needle in git metadata\n',
      'blob.bin': new Uint8Array([0, 110, 101, 101, 100, 108, 101]),
    });
    grep = createGrepTool(project.root);
  });
  afterEach(() => project.cleanup());

  it('finds matches across the tree, honouring nested .gitignore files and skipping .git and binaries', async () => {
    const result = await run(grep, { pattern: 'needle' }, project.ctx);
    expect(result).toEqual({
      output: ['src/a.ts:1: const needle = 1;', 'src/nested/keep.log:1: needle kept by negation'].join('\n'),
    });
  });

  it.each([
    [
      'ignore_case',
      { pattern: 'NEEDLE', ignore_case: true, path: 'src', glob: '*.?s' },
      ['src/a.ts:1:', 'src/b.js:1:'],
    ],
    ['a basename glob', { pattern: 'eedle', ignore_case: true, glob: '*.js' }, ['src/b.js:1:']],
    ['a path glob', { pattern: 'needle', glob: 'src/nested/**' }, ['src/nested/keep.log:1:']],
    ['a single file path', { pattern: 'other', path: 'src/a.ts' }, ['src/a.ts:2:']],
    ['a regex', { pattern: '^let \\w+ = \\d' }, ['src/b.js:1:']],
  ])('narrows with %s', async (_label, input, prefixes) => {
    const result = await run(grep, input, project.ctx);
    const lines = result.output.split('\n');
    expect(lines.map((line) => line.slice(0, line.indexOf(':', line.indexOf(':') + 1) + 1))).toEqual(
      prefixes,
    );
  });

  it('says so when nothing matches', async () => {
    expect(await run(grep, { pattern: 'absent' }, project.ctx)).toEqual({ output: 'No matches.' });
  });

  it('caps the results with a note', async () => {
    project.write('many.txt', Array.from({ length: 300 }, () => 'hit').join('\n'));
    const result = await run(grep, { pattern: 'hit', path: 'many.txt' }, project.ctx);
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(251);
    expect(lines[250]).toBe('[results capped at 250 matches; narrow the pattern, path or glob]');
  });

  it.each([
    ['an invalid regex', { pattern: '(' }, /^invalid regular expression \(RE2 syntax/],
    ['a backreference (not linear-time)', { pattern: '(a)\\1' }, /^invalid regular expression \(RE2 syntax/],
    ['a missing path', { pattern: 'x', path: 'nowhere' }, /^nowhere: no such file or directory$/],
  ])('fails on %s', async (_label, input, message) => {
    const result = await run(grep, input, project.ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(message);
  });

  it.each([[{}], [{ pattern: '' }], [{ pattern: 'x', ignore_case: 'yes' }], [{ pattern: 'x', glob: '' }]])(
    'schema rejects %j',
    (input) => {
      expect(grep.schema.safeParse(input).success).toBe(false);
    },
  );

  it('reports the resolved search directory as its subject', () => {
    expect(grep.subject({ pattern: 'x' })).toEqual({ kind: 'path', paths: [project.root] });
    expect(grep.subject({ pattern: 'x', path: '../outside' })).toEqual({
      kind: 'path',
      paths: [project.outside],
    });
    expect(grep.subject({ pattern: 'x', path: 'src/..' })).toEqual({ kind: 'path', paths: [project.root] });
    expect(grep.subject({ pattern: 'x', path: path.join(project.root, 'src') })).toEqual({
      kind: 'path',
      paths: [path.join(project.root, 'src')],
    });
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run(grep, { pattern: 'needle' }, { ...project.ctx, signal: controller.signal });
    expect(result).toEqual({ output: 'grep aborted', isError: true });
  });

  it('runs a catastrophic pattern over a large file in linear time, the event loop still turning', async () => {
    writeFileSync(path.join(project.root, 'big.txt'), `${'a'.repeat(200_000)}!\n`.repeat(10));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const result = await run(grep, { pattern: '(a+)+$', path: 'big.txt' }, project.ctx);
      expect(result).toEqual({ output: 'No matches.' });
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('names files over the size limit as skipped instead of dropping them silently', async () => {
    const big = path.join(project.root, 'src', 'huge.ts');
    writeFileSync(big, '');
    truncateSync(big, 5 * 1024 * 1024);
    const result = await run(grep, { pattern: 'needle', path: 'src' }, project.ctx);
    expect(result.output.split('\n')).toEqual([
      'src/a.ts:1: const needle = 1;',
      'src/nested/keep.log:1: needle kept by negation',
      '[skipped 1 file(s) over 4 MiB: src/huge.ts]',
    ]);
  });
});
