import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import type { Asker } from '../../src/agent/tool-runner.js';
import { openWorkspace } from '../../src/cli/bootstrap.js';
import type { PermissionAsk } from '../../src/permission/types.js';
import { resolveMainRoute } from '../../src/provider/route.js';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { makeProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function startRuntime(
  server: ScriptedServer,
  files: Record<string, string>,
  extraConfig: object = {},
  ask?: Asker,
) {
  const p = makeProject({
    files,
    config: {
      provider: 'main',
      providers: {
        main: scriptedProviderAlias(server, 'main-model'),
        cheap: scriptedProviderAlias(server, 'cheap-model'),
      },
      ...extraConfig,
    },
  });
  onTestFinished(() => p.cleanup());
  const env = { ...process.env, CADRE_CONFIG_DIR: p.configDir };
  const workspace = openWorkspace(p.dir, env);
  const store = openSessionStore(p.configDir);
  stores.push(store);
  const events: AgentEvent[] = [];
  const runtime = AgentRuntime.start({
    loaded: workspace.loaded,
    profiles: workspace.profiles,
    prompts: workspace.prompts,
    mainRoute: resolveMainRoute(workspace.loaded.config, {}, env),
    flags: { safety: 'full', yes: ask === undefined },
    env,
    emit: (e) => events.push(e),
    ask,
    store,
  });
  onTestFinished(() => runtime.close());
  return { runtime, events, project: p };
}

const FILES = {
  '.cadre/prompts/review.md': '---\nmode: review\ndeny_tools: [write]\n---\nReview mode body.\n',
  '.cadre/agents/reviewer.md':
    '---\nmodel: cheap\neffort: low\ntemperature: 0.3\ndeny_tools: [bash]\n---\nYou are a reviewer.\n',
  '.cadre/agents/other.md': '---\nmodel: gpt-literal\ndeny_tools: [edit]\n---\nYou are other.\n',
};

describe('AgentRuntime layering (SPEC 4.1)', () => {
  it('/prompt review, /agent reviewer, /agent off restores body, denies, model and effort exactly', async () => {
    const server = await scriptedServer(script().text('ok'));
    const { runtime } = startRuntime(server, FILES);
    const initial = {
      system: runtime.systemPrompt,
      tools: runtime.toolNames,
      route: runtime.modelRoute,
    };
    expect(initial.route.model).toBe('main-model');

    expect(runtime.selectPrompt('review').ok).toBe(true);
    const afterPrompt = { system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute };
    expect(afterPrompt.system.startsWith('Review mode body.')).toBe(true);
    expect(afterPrompt.system).toContain('Review mode is on');
    expect(initial.system).not.toContain('Review mode is on');
    expect(afterPrompt.tools).not.toContain('write');
    expect(afterPrompt.tools).toContain('bash');

    expect(runtime.activateProfile('reviewer').ok).toBe(true);
    expect(runtime.systemPrompt.startsWith('You are a reviewer.')).toBe(true);
    expect(runtime.toolNames).not.toContain('write');
    expect(runtime.toolNames).not.toContain('bash');
    expect(runtime.modelRoute).toMatchObject({ alias: 'cheap', model: 'cheap-model' });
    expect(runtime.activeProfile).toBe('reviewer');

    runtime.deactivateProfile();
    expect({ system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute }).toEqual(
      afterPrompt,
    );

    expect(runtime.selectPrompt('default').ok).toBe(true);
    expect({ system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute }).toEqual(
      initial,
    );
  });

  it('a second activation replaces the first; off returns to the state before the first', async () => {
    const server = await scriptedServer(script().text('ok'));
    const { runtime } = startRuntime(server, FILES);
    const before = { system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute };
    runtime.activateProfile('reviewer');
    runtime.activateProfile('other');
    expect(runtime.modelRoute).toMatchObject({ alias: 'main', model: 'gpt-literal' });
    expect(runtime.toolNames).toContain('bash');
    expect(runtime.toolNames).not.toContain('edit');
    runtime.deactivateProfile();
    expect({ system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute }).toEqual(
      before,
    );
  });

  it('an unknown profile lists the known names and changes nothing', async () => {
    const server = await scriptedServer(script().text('ok'));
    const { runtime } = startRuntime(server, FILES);
    runtime.activateProfile('reviewer');
    const before = { system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute };
    const change = runtime.activateProfile('nope');
    expect(change.ok).toBe(false);
    if (!change.ok) expect(change.message).toContain('reviewer');
    expect({ system: runtime.systemPrompt, tools: runtime.toolNames, route: runtime.modelRoute }).toEqual(
      before,
    );
    expect(runtime.activeProfile).toBe('reviewer');
  });

  it('the profile effort and temperature are sent to the model while it is active, and not after off', async () => {
    const server = await scriptedServer(script().text('ok'));
    const { runtime } = startRuntime(server, FILES);
    runtime.activateProfile('reviewer');
    await runtime.prompt('first');
    runtime.deactivateProfile();
    await runtime.prompt('second');
    const [first, second] = server.requests;
    expect(first.view).toMatchObject({
      model: 'cheap-model',
      temperature: 0.3,
      reasoning: { effort: 'low' },
    });
    expect(first.view.system.startsWith('You are a reviewer.')).toBe(true);
    expect(second.view.model).toBe('main-model');
    expect(second.view.temperature).toBeUndefined();
    expect(second.view.reasoning).toBeUndefined();
  });
});

describe('AgentRuntime subagent cancellation', () => {
  it('cancels a single background child by id, and the main agent hears about it', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are slow.' })
        .turn((t) => t.delay(30_000).text('never'))
        .rule({ last_user: 'Background task' })
        .text('heard it')
        .rule()
        .turn((t) => t.tool('task', { agent: 'slow', prompt: 'wait', background: true }))
        .text('waiting'),
    );
    const { runtime, events } = startRuntime(server, {
      '.cadre/agents/slow.md': '---\nsubagent_tools: readonly\n---\nYou are slow.\n',
    });
    const run = runtime.prompt('go');
    await runtime.subagents.waitFor((m) => m.list().some((t) => t.state === 'running'));
    await server.waitForRequests(2);
    const [task] = runtime.subagents.list();
    expect(runtime.subagents.cancel(task.id.slice(0, 6))).toBe(true);
    const result = await run;
    expect(result.text).toBe('heard it');
    expect(task.state).toBe('cancelled');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'subagent_end', taskId: task.id, status: 'cancelled' }),
    );
  });

  it('cancelling the parent run cancels its running children', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are slow.' })
        .turn((t) => t.delay(30_000).text('never'))
        .rule()
        .turn((t) => t.tool('task', { agent: 'slow', prompt: 'wait' })),
    );
    const { runtime } = startRuntime(server, {
      '.cadre/agents/slow.md': '---\nsubagent_tools: readonly\n---\nYou are slow.\n',
    });
    const controller = new AbortController();
    const run = runtime.prompt('go', controller.signal);
    await runtime.subagents.waitFor((m) => m.list().some((t) => t.state === 'running'));
    await server.waitForRequests(2);
    controller.abort(new Error('user pressed Esc'));
    const result = await run;
    expect(result.stopReason).toBe('cancelled');
    expect(runtime.subagents.list().map((t) => t.state)).toEqual(['cancelled']);
  });
});

describe('AgentRuntime asks from subagents (SPEC 6.6)', () => {
  it('routes a child ask to the root asker labeled with the child, and honours the answer', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the writer.' })
        .turn((t) => t.tool('write', { path: 'out.txt', content: 'written by the child' }))
        .text('wrote it')
        .rule({ last_user: 'Background task' })
        .text('the writer finished')
        .rule()
        .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write out.txt', background: true }))
        .text('waiting for the writer'),
    );
    const asks: PermissionAsk[] = [];
    const { runtime, events, project } = startRuntime(
      server,
      { '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are the writer.\n' },
      {},
      async (ask) => {
        asks.push(ask);
        return { kind: 'allow_once' };
      },
    );
    // A live session (one with an asker) ends the turn at once; the background result resumes it.
    const first = await runtime.prompt('go');
    expect(first.text).toBe('waiting for the writer');
    await runtime.subagents.waitFor((m) => m.list().every((t) => t.state === 'completed'));
    expect(runtime.hasPendingReminders()).toBe(true);
    const result = await runtime.resume();
    expect(result.text).toBe('the writer finished');
    const [task] = runtime.subagents.list();
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({ agent: task.id, tool: 'write', suggestedRule: 'write(out.txt)' });
    expect(asks[0].decision.action).toBe('ask');
    expect(events).toContainEqual(expect.objectContaining({ type: 'permission_ask', agent: task.id }));
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(project.path('out.txt'), 'utf8')).toBe('written by the child');
  });
});

describe('AgentRuntime session approvals', () => {
  it('an "always allow" holds across profile switches and for subagents, and is stored', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the writer.' })
        .turn((t) => t.tool('write', { path: 'child.txt', content: 'c' }))
        .text('child wrote')
        .rule({ last_user: 'second' })
        .turn((t) =>
          t.tool('write', { path: 'b.txt', content: 'b' }).tool('task', { agent: 'writer', prompt: 'write' }),
        )
        .text('second done')
        .rule()
        .turn((t) => t.tool('write', { path: 'a.txt', content: 'a' }))
        .text('first done'),
    );
    const asks: PermissionAsk[] = [];
    const { runtime } = startRuntime(
      server,
      {
        '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are the writer.\n',
        '.cadre/agents/other.md': 'You are other.\n',
      },
      {},
      async (ask) => {
        asks.push(ask);
        return { kind: 'always', pattern: 'write(*)' };
      },
    );
    await runtime.prompt('first');
    runtime.activateProfile('other');
    runtime.deactivateProfile();
    await runtime.prompt('second');
    expect(asks.map((a) => a.tool)).toEqual(['write']);
    const store = stores.at(-1)!;
    expect(store.approvals(runtime.session.id)).toEqual(['write(*)']);
  });
});

describe('AgentRuntime task ids', () => {
  it('cancel refuses an ambiguous prefix and takes an exact id', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are slow.' })
        .turn((t) => t.delay(30_000).text('never'))
        .rule({ last_user: 'Background task' })
        .text('heard')
        .text('heard')
        .rule()
        .turn((t) =>
          t
            .tool('task', { agent: 'slow', prompt: 'a', background: true })
            .tool('task', { agent: 'slow', prompt: 'b', background: true }),
        )
        .text('waiting'),
    );
    const { runtime } = startRuntime(server, {
      '.cadre/agents/slow.md': '---\nsubagent_tools: readonly\n---\nYou are slow.\n',
    });
    const run = runtime.prompt('go');
    await runtime.subagents.waitFor((m) => m.list().filter((t) => t.state === 'running').length === 2);
    expect(runtime.subagents.cancel('')).toBe(false);
    for (const task of runtime.subagents.list()) expect(runtime.subagents.cancel(task.id)).toBe(true);
    await run;
    expect(runtime.subagents.list().map((t) => t.state)).toEqual(['cancelled', 'cancelled']);
  });
});
