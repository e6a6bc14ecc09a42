import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadInstructions } from '../../src/profile/instructions.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

describe('project instructions (AGENTS.md, CLAUDE.md)', () => {
  it('go into the main system prompt: global first, then root down to the working directory', async () => {
    const server = await scriptedServer(script().text('ok'));
    const project = servedProject(server, {
      git: true,
      files: {
        'AGENTS.md': 'Root rule: use tabs.',
        'CLAUDE.md': 'Ignored: AGENTS.md is present here.',
        'pkg/CLAUDE.md': 'Package rule: no default exports.',
        'pkg/sub/other.txt': 'x',
      },
    });
    writeFileSync(join(project.configDir, 'AGENTS.md'), 'Global rule: be brief.');
    const run = await cadreIn(project, ['-p', 'hi', '--cwd', project.path('pkg/sub')]);
    expect(run.code).toBe(0);
    const system = server.requests[0].view.system;
    const order = ['Global rule', 'Root rule', 'Package rule'].map((rule) => system.indexOf(rule));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).not.toContain('Ignored: AGENTS.md is present here.');
  });

  it('cadre agents shows which files were loaded', async () => {
    const server = await scriptedServer(script());
    const project = servedProject(server, { git: true, files: { 'AGENTS.md': 'Rule.' } });
    const text = await cadreIn(project, ['agents']);
    expect(text.stdout).toContain(`Project instructions (main agent):\n  ${project.path('AGENTS.md')}`);
  });

  it('an unreadable instructions file is a warning naming it, not a failure', () => {
    const dir = join(servedProjectDir(), 'AGENTS.md');
    mkdirSync(dir);
    const loaded = loadInstructions({
      globalDir: '/nonexistent',
      projectRoot: join(dir, '..'),
      cwd: join(dir, '..'),
    });
    expect(loaded.files).toEqual([]);
    expect(loaded.warnings).toEqual([{ path: dir, reason: 'a directory, not a regular file' }]);
  });
});

function servedProjectDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-instructions-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('--prompt NAME headless', () => {
  it('selects the prompt layer at start, beside --agent', async () => {
    const server = await scriptedServer(script().text('planned'));
    const project = servedProject(server, {
      files: { '.cadre/prompts/planner.md': '---\nmode: plan\n---\nYou plan before you act.\n' },
    });
    const run = await cadreIn(project, ['-p', 'x', '--prompt', 'planner']);
    expect(run.code).toBe(0);
    expect(server.requests[0].view.system).toContain('You plan before you act.');
  });

  it('an unknown prompt name is exit 2 listing the known ones', async () => {
    const server = await scriptedServer(script().text('never'));
    const project = servedProject(server, { files: { '.cadre/prompts/planner.md': 'Plan.\n' } });
    const run = await cadreIn(project, ['-p', 'x', '--prompt', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown prompt "nope"; known: default, planner');
    expect(server.requests).toHaveLength(0);
  });
});
