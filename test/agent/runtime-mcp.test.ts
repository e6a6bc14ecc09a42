import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import { openWorkspace } from '../../src/cli/bootstrap.js';
import { resolveMainRoute } from '../../src/provider/route.js';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { fragileServerSource, growingServerSource, holdFilePath, warningWatcher } from '../mcp/helpers.js';
import { makeProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A runtime on `server` with `mcp_servers`, connected in the background; `warned(re)` awaits a warning. */
async function startRuntime(
  server: ScriptedServer,
  mcpServers: Record<string, object>,
  files: Record<string, string> = {},
) {
  const p = makeProject({
    files,
    config: { provider: 'main', providers: { main: scriptedProviderAlias(server) }, mcp_servers: mcpServers },
  });
  onTestFinished(() => p.cleanup());
  const env = { ...process.env, CADRE_CONFIG_DIR: p.configDir };
  // The servers are the project's own: they start only in a trusted project.
  const workspace = openWorkspace(p.dir, env, { trustProject: true });
  const store = openSessionStore(p.configDir);
  stores.push(store);
  const { warnings, onWarning, warned } = warningWatcher();
  const runtime = AgentRuntime.start({
    loaded: workspace.loaded,
    profiles: workspace.profiles,
    prompts: workspace.prompts,
    mainRoute: resolveMainRoute(workspace.loaded.config, {}, env),
    flags: { safety: 'full', yes: true },
    env,
    emit: (event: AgentEvent) => {
      if (event.type === 'warning') onWarning(event.message);
    },
    store,
  });
  onTestFinished(() => runtime.close());
  await runtime.connectMcp();
  return { runtime, warnings, warned };
}

const mcpTools = (server: ScriptedServer, index: number) =>
  server.requests[index].view.tools.filter((name) => name.startsWith('mcp__'));

describe('MCP servers in a session (SPEC 14, issue 16 A5)', () => {
  it('a server that hangs at start delays the first turn by the grace at most; one that starts in time is in it', async () => {
    const server = await scriptedServer(script().text('answered'));
    const hanging = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    const growing = { command: process.execPath, args: ['-e', growingServerSource()] };
    const { runtime, warnings } = await startRuntime(server, { hanging, growing });
    const result = await runtime.prompt('hi');
    expect(result.text).toBe('answered');
    // The fast server made the first request without anyone waiting for it by hand (SPEC 14: in the background).
    expect(mcpTools(server, 0)).toEqual(['mcp__growing__grow']);
    // Still connecting when the answer came: the turn waited the 5 s grace, not its 30 s connect timeout.
    expect(runtime.mcpStatus()).toEqual([
      expect.objectContaining({ name: 'hanging', state: 'connecting' }),
      expect.objectContaining({ name: 'growing', state: 'connected' }),
    ]);
    expect(warnings).toEqual([]);
  });

  it('withdraws a dead server’s tools at the next turn and brings them back once it reconnects', async () => {
    const hold = holdFilePath();
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'crash it' })
        .turn((t) => t.tool('mcp__fragile__crash'))
        .text('crashed')
        .rule({ last_user: 'ping it' })
        .turn((t) => t.tool('mcp__fragile__ping'))
        .text('pinged')
        .rule()
        .text('plain'),
    );
    const { runtime, warned } = await startRuntime(server, {
      fragile: { command: process.execPath, args: ['-e', fragileServerSource(hold)] },
    });
    await runtime.mcpSettled();
    expect((await runtime.prompt('look around')).text).toBe('plain');
    const builtins = server.requests[0].view.tools.filter((name) => !name.startsWith('mcp__'));
    // MCP tools come after the built-ins, sorted.
    expect(server.requests[0].view.tools).toEqual([...builtins, 'mcp__fragile__crash', 'mcp__fragile__ping']);

    writeFileSync(hold, '');
    expect((await runtime.prompt('crash it')).text).toBe('crashed');
    // The crash turn itself kept the list it started with; the tools go at a turn boundary.
    expect(server.requests[1].body).toMatchObject({
      tools: (server.requests[0].body as { tools: unknown }).tools,
    });
    await warned(/"fragile" disconnected/);
    expect((await runtime.prompt('look again')).text).toBe('plain');
    expect(mcpTools(server, 3)).toEqual([]);

    rmSync(hold);
    await warned(/"fragile" reconnected/);
    expect((await runtime.prompt('ping it')).text).toBe('pinged');
    const [pingRequest, afterPing] = server.requests.slice(4);
    expect(pingRequest.view.tools).toEqual(server.requests[0].view.tools);
    // Byte-identical again once the set is the same as before.
    expect(JSON.stringify((pingRequest.body as { tools: unknown }).tools)).toBe(
      JSON.stringify((server.requests[0].body as { tools: unknown }).tools),
    );
    expect(afterPing.view.messages.at(-1)?.text).toContain('pong');
  });

  it('takes a server’s changed tool list (list_changed) into the main agent’s next model turn', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'grow it' })
        .turn((t) => t.tool('mcp__growing__grow'))
        .text('grown'),
    );
    const growing = { command: process.execPath, args: ['-e', growingServerSource()] };
    const { runtime } = await startRuntime(server, { growing });
    await runtime.mcpSettled();
    expect((await runtime.prompt('grow it')).text).toBe('grown');
    expect(mcpTools(server, 0)).toEqual(['mcp__growing__grow']);
    expect(mcpTools(server, 1)).toEqual(['mcp__growing__extra', 'mcp__growing__grow']);
  });

  it('gives a running child the session’s current MCP tools at its next turn, through its own grant', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the grower.' })
        .turn((t) => t.tool('mcp__growing__grow'))
        .text('child grew it')
        .rule({ system: 'You are the narrow one.' })
        .text('narrow done')
        .rule()
        .turn((t) => t.tool('task', { agent: 'grower', prompt: 'grow' }))
        .turn((t) => t.tool('task', { agent: 'narrow', prompt: 'look' }))
        .text('delegated'),
    );
    const growing = { command: process.execPath, args: ['-e', growingServerSource()] };
    const { runtime } = await startRuntime(
      server,
      { growing },
      {
        // The grant names `extra` before the server has it: a grant applies to the tools of each turn.
        '.cadre/agents/grower.md':
          '---\nsubagent_tools: readonly\nsubagent_mcp: [grow, extra]\n---\nYou are the grower.\n',
        '.cadre/agents/narrow.md':
          '---\nsubagent_tools: readonly\nsubagent_mcp: [grow]\n---\nYou are the narrow one.\n',
      },
    );
    await runtime.mcpSettled();
    expect((await runtime.prompt('delegate')).text).toBe('delegated');
    const mcpOf = (system: string) =>
      server.requests
        .filter((r) => r.view.system.includes(system))
        .map((r) => r.view.tools.filter((n) => n.startsWith('mcp__')));
    expect(mcpOf('You are the grower.')).toEqual([
      ['mcp__growing__grow'],
      ['mcp__growing__extra', 'mcp__growing__grow'],
    ]);
    expect(mcpOf('You are the narrow one.')).toEqual([['mcp__growing__grow']]);
  });
});
