import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';

const REVIEWER = '---\nmodel: cheap\ndeny_tools: [bash]\n---\nYou are a reviewer\n';

function reviewerProject(): TestProject {
  const project = makeProject({ files: { '.cadre/agents/reviewer.md': REVIEWER } });
  onTestFinished(() => project.cleanup());
  return project;
}

function cadreIn(project: TestProject, args: string[]) {
  return runCadre(args, { cwd: project.dir, env: { CADRE_CONFIG_DIR: project.configDir } });
}

describe('cadre permissions explain --agent (SPEC 6.8)', () => {
  it('denies bash for a profile with deny_tools: [bash], naming the profile', async () => {
    const project = reviewerProject();

    const result = await cadreIn(project, ['permissions', 'explain', '--agent', 'reviewer', 'bash(ls)']);

    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('decision: deny');
    expect(result.stdout).toContain('profile reviewer');
    expect(result.stdout).toContain(project.path('.cadre/agents/reviewer.md'));
  });

  it('gives the same decision as JSON, with the hard-deny layer', async () => {
    const project = reviewerProject();

    const result = await cadreIn(project, [
      'permissions',
      'explain',
      '--agent',
      'reviewer',
      '--json',
      'bash(ls)',
    ]);

    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({
      decision: 'deny',
      layer: 'hard-deny',
      rule: 'deny_tools: bash',
      source: project.path('.cadre/agents/reviewer.md'),
    });
  });

  it('does not deny bash without the profile', async () => {
    const project = reviewerProject();

    const result = await cadreIn(project, ['permissions', 'explain', 'bash(ls)']);

    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).not.toBe('decision: deny');
    expect(result.stdout).not.toContain('profile reviewer');
  });

  it('exits 2 listing the known names for an unknown --agent', async () => {
    const project = reviewerProject();

    const result = await cadreIn(project, ['permissions', 'explain', '--agent', 'nope', 'bash(ls)']);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown profile "nope"');
    for (const name of ['explore', 'general', 'review', 'reviewer', 'security-review']) {
      expect(result.stderr).toContain(name);
    }
  });

  it('honours its own --cwd', async () => {
    const project = reviewerProject();

    const result = await runCadre(
      ['permissions', 'explain', '--cwd', project.dir, '--agent', 'reviewer', 'bash(ls)'],
      { env: { CADRE_CONFIG_DIR: project.configDir } },
    );

    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('decision: deny');
  });
});

describe('cadre agents --cwd', () => {
  it('lists the profiles of the named directory', async () => {
    const project = reviewerProject();

    const result = await runCadre(['agents', '--cwd', project.dir, '--json'], {
      env: { CADRE_CONFIG_DIR: project.configDir },
    });

    expect(result.code).toBe(0);
    const names = JSON.parse(result.stdout).profiles.map((p: { name: string }) => p.name);
    expect(names).toContain('reviewer');
  });
});
