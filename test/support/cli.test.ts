import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { assertFreshBundle, makeProject, runCadre } from './cli.js';

const fixtureDir = mkdtempSync(join(tmpdir(), 'cadre-cli-helper-'));
afterAll(() => rmSync(fixtureDir, { recursive: true, force: true }));

/** Stands in for the CLI: reports what it was given, then exits with the code named in its first argument. */
const echo = join(fixtureDir, 'echo.mjs');
writeFileSync(
  echo,
  `let stdin = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { stdin += c; });
process.stdin.on('end', () => {
  const env = process.env;
  process.stdout.write(JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd(), stdin,
    configDir: env.CADRE_CONFIG_DIR ?? null, anthropicKey: env.ANTHROPIC_API_KEY ?? null, extra: env.EXTRA ?? null }));
  process.stderr.write('to stderr');
  process.exitCode = Number(process.argv[2] ?? 0);
});
`,
);
const hang = join(fixtureDir, 'hang.mjs');
writeFileSync(hang, 'setInterval(() => {}, 1000);\n');

describe('runCadre', () => {
  it('passes args, stdin and env, and gives a private config dir and working dir', async () => {
    const result = await runCadre(['3', '--flag'], {
      entry: echo,
      stdin: 'task from stdin',
      env: { EXTRA: 'yes', ANTHROPIC_API_KEY: undefined },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('to stderr');
    const seen = JSON.parse(result.stdout);
    expect(seen).toMatchObject({
      args: ['3', '--flag'],
      stdin: 'task from stdin',
      extra: 'yes',
      anthropicKey: null,
    });
    expect(seen.configDir).toContain(tmpdir());
    expect(seen.cwd).toContain(tmpdir());
    expect(existsSync(seen.configDir)).toBe(false);
  });

  it('keeps real API keys out of the child and honours an explicit config dir and cwd', async () => {
    const previous = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'must-not-leak';
    onTestFinished(() => {
      if (previous === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = previous;
    });
    const result = await runCadre(['0'], {
      entry: echo,
      cwd: fixtureDir,
      env: { CADRE_CONFIG_DIR: fixtureDir },
    });
    expect(JSON.parse(result.stdout)).toMatchObject({
      anthropicKey: null,
      configDir: fixtureDir,
      cwd: fixtureDir,
    });
  });

  it('kills a process that outlives its timeout and says what it printed', async () => {
    await expect(runCadre(['x'], { entry: hang, timeoutMs: 300 })).rejects.toThrow('timed out after 300 ms');
  });
});

describe('makeProject', () => {
  it('writes files and the project config, and commits them in a fresh git repo', () => {
    const project = makeProject({
      files: { 'src/a.txt': 'hello\n', 'README.md': '# demo\n' },
      config: { provider: 'fake' },
      git: true,
    });
    onTestFinished(() => project.cleanup());
    expect(readFileSync(project.path('src/a.txt'), 'utf8')).toBe('hello\n');
    expect(JSON.parse(readFileSync(project.path('.cadre/config.json'), 'utf8'))).toEqual({
      provider: 'fake',
    });
    const tracked = execFileSync('git', ['ls-files'], { cwd: project.dir, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(tracked.sort()).toEqual(['.cadre/config.json', 'README.md', 'src/a.txt']);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: project.dir, encoding: 'utf8' })).toBe('');
  });

  it('makes a plain directory without git and removes everything on cleanup', () => {
    const project = makeProject({ config: '// comment\n{}' });
    expect(existsSync(project.path('.git'))).toBe(false);
    expect(readFileSync(project.path('.cadre/config.json'), 'utf8')).toBe('// comment\n{}');
    expect(existsSync(project.configDir)).toBe(true);
    project.cleanup();
    expect(existsSync(project.dir)).toBe(false);
    expect(existsSync(project.configDir)).toBe(false);
  });
});

describe('assertFreshBundle', () => {
  it('fails on a bundle older than a source file, naming both, and passes once it is rebuilt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cadre-bundle-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const bundle = join(dir, 'cli.js');
    const src = join(dir, 'src');
    mkdirSync(join(src, 'deep'), { recursive: true });
    writeFileSync(bundle, '');
    writeFileSync(join(src, 'deep', 'a.ts'), '');
    utimesSync(bundle, new Date(1_000_000), new Date(1_000_000));
    expect(() => assertFreshBundle(bundle, src)).toThrow(
      `${bundle} is older than ${join(src, 'deep', 'a.ts')}`,
    );
    utimesSync(bundle, new Date(), new Date(Date.now() + 60_000));
    expect(() => assertFreshBundle(bundle, src)).not.toThrow();
    expect(() => assertFreshBundle(join(dir, 'none.js'), src)).toThrow(/is missing: run `npm run build`/);
  });
});
