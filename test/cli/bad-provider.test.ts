import { writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre } from '../support/cli.js';

function project(script: string) {
  const p = makeProject({
    config: { provider: 's', providers: { s: { type: 'scripted', script: 's.json' } } },
  });
  onTestFinished(() => p.cleanup());
  writeFileSync(p.path('.cadre/s.json'), script);
  return p;
}

describe('a scripted provider with a bad script', () => {
  it.each([
    [
      'an unknown key',
      '{"rules": [{"turns": [{"txt": "x"}]}]}',
      /s\.json:1: invalid script at rules\[0\]\.turns\[0\]\.txt: unknown key "txt"/,
    ],
    ['broken JSON', '{"rules": [', /s\.json:1: invalid JSON in script/],
  ])(
    'is bad configuration: %s gives exit 2 with file, line and JSON path, no stack trace',
    async (_name, text, message) => {
      const p = project(text);
      const run = await runCadre(['-p', 'hi'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(
        run.stderr.split('\n').filter((line) => message.test(line)),
        'said once',
      ).toHaveLength(1);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('a missing script file is exit 2 naming it', async () => {
    const p = makeProject({
      config: { provider: 's', providers: { s: { type: 'scripted', script: 'nope.json' } } },
    });
    onTestFinished(() => p.cleanup());
    const run = await runCadre(['-p', 'hi'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nope.json: cannot read script');
    const stream = await runCadre(['-p', 'hi', '--output-format', 'stream-json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(stream.code).toBe(2);
    expect(stream.stderr.match(/nope\.json: cannot read script/g), 'said once on stderr').toHaveLength(1);
  });
});

describe('a malformed permission rule', () => {
  it('in config is exit 2 naming file, line and rule', async () => {
    const p = makeProject({
      config: {
        provider: 's',
        providers: { s: { type: 'scripted', script: 's.json' } },
        permission: { allow: ['bash(git diff'] },
      },
    });
    onTestFinished(() => p.cleanup());
    writeFileSync(p.path('.cadre/s.json'), '{"rules": [{"turns": [{"text": "hi"}]}]}');
    const run = await runCadre(['-p', 'hi'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/config\.json:\d+: rule "bash\(git diff" has an unterminated pattern/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('in the operator --permissions file is exit 2 for -p and for explain', async () => {
    const p = project('{"rules": [{"turns": [{"text": "hi"}]}]}');
    writeFileSync(p.path('op.json'), '{"deny": ["("]}');
    for (const args of [
      ['-p', 'hi', '--permissions', 'op.json'],
      ['permissions', 'explain', 'bash(ls)', '--permissions', 'op.json'],
    ]) {
      const run = await runCadre(args, { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('op.json:1: rule "(" has an empty tool name');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('an empty task', () => {
  it('is bad usage, exit 2, without calling any model', async () => {
    const run = await runCadre(['-p', '  ']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('cadre: no task: the task given to -p is empty\n');
  });
});
