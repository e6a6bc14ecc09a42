import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

/** Tool results the child (matched by its system prompt) received, in order. */
function childToolResults(server: ScriptedServer, system: string): string[] {
  const requests = server.requests.filter((r) => r.view.system.includes(system));
  return (
    requests
      .at(-1)
      ?.view.messages.filter((m) => m.role === 'tool')
      .map((m) => m.text) ?? []
  );
}

const WORKER = '---\nsubagent_tools: readwrite\n---\nYou are the worker.\n';

function delegating(childTurns: (s: ReturnType<typeof script>) => ReturnType<typeof script>) {
  return childTurns(script().rule({ system: 'You are the worker.' }))
    .rule()
    .turn((t) => t.tool('task', { agent: 'worker', prompt: 'do the work' }))
    .turn((t) => t.text('parent done'));
}

describe('delegation only narrows (SPEC 6.7) end to end', () => {
  it('a readwrite child under --safety read-only cannot write, even with --yes', async () => {
    const server = await scriptedServer(
      delegating((s) => s.turn((t) => t.tool('write', { path: 'out.txt', content: 'x' })).text('tried')),
    );
    const p = project({
      files: { '.cadre/agents/worker.md': WORKER },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
    });
    const run = await runCadre(['-p', 'go', '--safety', 'read-only', '--yes'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const child = server.requests.find((r) => r.view.system.includes('You are the worker.'))!;
    expect(child.view.tools).not.toContain('write');
    expect(childToolResults(server, 'You are the worker.')[0]).toBe(
      'Permission denied: denied by the safety floor (--safety read-only): this write call is of class write.',
    );
    expect(existsSync(p.path('out.txt'))).toBe(false);
  });

  it('an operator deny of bash(git push *) stops a child git push that its own rules allow', async () => {
    const server = await scriptedServer(
      delegating((s) => s.turn((t) => t.tool('bash', { command: 'git push origin main' })).text('tried')),
    );
    const p = project({
      git: true,
      files: {
        '.cadre/agents/worker.md': `---\nsubagent_tools: readwrite\npermission:\n  allow: ["bash(git push *)"]\n---\nYou are the worker.\n`,
        'operator.json': JSON.stringify({ deny: ['bash(git push *)'] }),
      },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
    });
    const run = await runCadre(
      ['-p', 'go', '--yes', '--permissions', 'operator.json', '--output-format', 'json'],
      {
        cwd: p.dir,
        env: { CADRE_CONFIG_DIR: p.configDir },
      },
    );
    expect(run.code).toBe(0);
    const result = childToolResults(server, 'You are the worker.')[0];
    expect(result).toMatch(/^Permission denied/);
    expect(result).toContain('bash(git push *)');
    expect(result).toContain('operator.json');
    const denials = JSON.parse(run.stdout).permission_denials;
    expect(denials).toEqual([expect.objectContaining({ tool: 'bash', rule: 'bash(git push *)' })]);
    expect(denials[0].agent).toMatch(/^[0-9a-f]{12}$/);
  });

  it('a parent whose profile denies edit delegates an edit to a worker that allows it', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the worker.' })
        .turn((t) => t.tool('edit', { path: 'a.txt', old_string: 'old', new_string: 'new' }))
        .text('edited')
        .rule({ system: 'You orchestrate.' })
        .turn((t) => t.tool('edit', { path: 'a.txt', old_string: 'old', new_string: 'mine' }))
        .turn((t) => t.tool('task', { agent: 'worker', prompt: 'edit a.txt' }))
        .turn((t) => t.text('delegated')),
    );
    const p = project({
      files: {
        'a.txt': 'old\n',
        '.cadre/agents/worker.md': WORKER,
        '.cadre/agents/orchestrator.md': '---\ndeny_tools: [edit, write]\n---\nYou orchestrate.\n',
      },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
    });
    const run = await runCadre(['-p', 'go', '--agent', 'orchestrator', '--yes'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('delegated');
    const parent = server.requests.filter((r) => r.view.system.includes('You orchestrate.'));
    expect(parent[0].view.tools).not.toContain('edit');
    expect(parent[1].view.messages.at(-1)?.text).toBe(
      'Permission denied: denied by profile orchestrator (deny_tools: edit).',
    );
    expect(readFileSync(p.path('a.txt'), 'utf8')).toBe('new\n');
  });

  it("a headless child's ask is denied with the no-user message and the parent goes on", async () => {
    const server = await scriptedServer(
      delegating((s) =>
        s.turn((t) => t.tool('write', { path: 'out.txt', content: 'x' })).text('could not write'),
      ),
    );
    const p = project({
      files: { '.cadre/agents/worker.md': WORKER },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
    });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(childToolResults(server, 'You are the worker.')[0]).toMatch(/no user is present/i);
    expect(existsSync(p.path('out.txt'))).toBe(false);
  });

  it('a task(<name>) deny rule hides that profile from the enum and refuses the call', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('task', { agent: 'worker', prompt: 'x' }))
        .text('ok'),
    );
    const p = project({
      files: { '.cadre/agents/worker.md': WORKER },
      config: {
        provider: 'm',
        providers: { m: scriptedProviderAlias(server) },
        permission: { deny: ['task(worker)'] },
      },
    });
    writeFileSync(p.path('x'), '');
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    const body = server.requests[0].body as {
      tools: { function: { name: string; parameters: { properties: { agent: { enum: string[] } } } } }[];
    };
    const task = body.tools.find((t) => t.function.name === 'task');
    expect(task?.function.parameters.properties.agent.enum).not.toContain('worker');
    expect(server.requests[1].view.messages.at(-1)?.text).toMatch(/^Permission denied.*task\(worker\)/);
  });
});
