import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

/**
 * Issue 15 point 6: a cloned repository's own config and profiles cannot lift the user's global deny and
 * ask rules — directly, or through a project profile run by `task`. The deny holds and is warned once.
 */
const WORKER = `---\nsubagent_tools: readwrite\npermission:\n  allow: ["bash(touch *)", "bash"]\n---\nYou are the worker.\n`;

function globalConfig(configDir: string, permission: Record<string, string[]>): string {
  mkdirSync(configDir, { recursive: true });
  const file = join(configDir, 'config.json');
  writeFileSync(file, `${JSON.stringify({ permission }, null, 2)}\n`);
  return file;
}

function childResults(server: ScriptedServer, system: string): string[] {
  const requests = server.requests.filter((r) => r.view.system.includes(system));
  return (
    requests
      .at(-1)
      ?.view.messages.filter((m) => m.role === 'tool')
      .map((m) => m.text) ?? []
  );
}

describe("the user's global denies are a ceiling over the project", () => {
  it('a project config allow does not lift a global deny, even with --yes; warned once', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'touch pwned.txt' }))
        .turn((t) => t.tool('bash', { command: 'touch pwned2.txt' }))
        .text('done'),
    );
    const project = servedProject(server, {
      config: { permission: { allow: ['bash(touch *)', 'Bash'] } },
    });
    const globalFile = globalConfig(project.configDir, { deny: ['bash(touch *)'] });
    const run = await cadreIn(project, ['-p', 'make files', '--yes']);
    expect(run.code).toBe(0);
    const [first, second] = toolResults(server.requests[2]).map((m) => m.text);
    expect(first).toMatch(/^Permission denied/);
    expect(first).toContain(`bash(touch *) (${globalFile}:`);
    expect(second).toMatch(/^Permission denied/);
    expect(existsSync(project.path('pwned.txt'))).toBe(false);
    expect(existsSync(project.path('pwned2.txt'))).toBe(false);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('ceiling over project rules'));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(new Set(warnings).size).toBe(warnings.length);

    const explain = await cadreIn(project, ['permissions', 'explain', 'bash(touch x)', '--yes']);
    const lines = explain.stdout.split('\n');
    expect(lines[0]).toBe('decision: deny');
    expect(lines.some((l) => l.startsWith('  [ceiling] deny bash(touch *)') && l.includes(globalFile))).toBe(
      true,
    );
  });

  it('a global ask is not lifted to allow by a project rule: --yes approves, headless refuses', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'touch a.txt' }))
        .text('x'),
    );
    const project = servedProject(server, { config: { permission: { allow: ['bash(touch *)'] } } });
    globalConfig(project.configDir, { ask: ['bash(touch *)'] });
    const explain = await cadreIn(project, ['permissions', 'explain', 'bash(touch a.txt)']);
    expect(explain.stdout.split('\n')[0]).toBe('decision: ask');
    const headless = await cadreIn(project, ['permissions', 'explain', 'bash(touch a.txt)', '--headless']);
    expect(headless.stdout.split('\n')[0]).toBe('decision: deny');
    const run = await cadreIn(project, ['-p', 'go']);
    expect(run.code).toBe(0);
    expect(existsSync(project.path('a.txt'))).toBe(false);
  });

  it('a project profile run by task does not lift a global deny either', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the worker.' })
        .turn((t) => t.tool('bash', { command: 'touch from-child.txt' }))
        .text('tried')
        .rule()
        .turn((t) => t.tool('task', { agent: 'worker', prompt: 'do it' }))
        .text('parent done'),
    );
    const project = servedProject(server, { files: { '.cadre/agents/worker.md': WORKER } });
    const globalFile = globalConfig(project.configDir, { deny: ['bash(touch *)'] });
    const run = await cadreIn(project, ['-p', 'go', '--yes']);
    expect(run.code).toBe(0);
    const [result] = childResults(server, 'You are the worker.');
    expect(result).toMatch(/^Permission denied/);
    expect(result).toContain(globalFile);
    expect(existsSync(project.path('from-child.txt'))).toBe(false);
  });

  it('an untrusted project allow rule that points outside the project is ignored with a warning', async () => {
    const server = await scriptedServer(script().text('x'));
    const project = servedProject(server, {
      config: { permission: { allow: ['read(/etc/**)', 'Read(//etc/**)'] } },
    });
    const explain = await cadreIn(project, ['permissions', 'explain', 'read(/etc/hostname)', '--headless']);
    expect(explain.stdout.split('\n')[0]).toBe('decision: deny');
    expect(explain.stderr).toContain(
      'points outside the project and is ignored until the project is trusted',
    );
    const trusted = await cadreIn(project, [
      'permissions',
      'explain',
      'read(/etc/hostname)',
      '--trust-project',
    ]);
    expect(trusted.stdout.split('\n')[0]).toBe('decision: allow');
  });
});
