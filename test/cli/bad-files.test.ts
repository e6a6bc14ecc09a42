import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre } from '../support/cli.js';

describe('files cadre cannot read as text', () => {
  it('--permissions naming a FIFO is exit 2 naming the path, not a hang', async () => {
    const p = makeProject({});
    onTestFinished(() => p.cleanup());
    execFileSync('mkfifo', [p.path('policy.json')]);
    const run = await runCadre(['permissions', 'explain', '--permissions', 'policy.json', 'bash(ls)'], {
      cwd: p.dir,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--permissions ${p.path('policy.json')}: a FIFO, not a regular file`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a project config that is /dev/zero behind a symlink is exit 2 naming the path', async () => {
    const p = makeProject({ files: { '.cadre/.keep': '' } });
    onTestFinished(() => p.cleanup());
    symlinkSync('/dev/zero', p.path('.cadre/config.json'));
    const run = await runCadre(['agents'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${p.path('.cadre/config.json')}: a device, not a regular file`);
  });

  it('a profile that is a FIFO is one load warning and cadre goes on', async () => {
    const p = makeProject({ files: { '.cadre/agents/.keep': '' } });
    onTestFinished(() => p.cleanup());
    execFileSync('mkfifo', [p.path('.cadre/agents/stuck.md')]);
    const run = await runCadre(['agents'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('stuck.md');
    expect(run.stderr).toContain('a FIFO, not a regular file');
  });
});
