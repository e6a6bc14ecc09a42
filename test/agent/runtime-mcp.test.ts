import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import { openWorkspace } from '../../src/cli/bootstrap.js';
import { resolveMainRoute } from '../../src/provider/route.js';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { fragileServerSource, holdFilePath, warningWatcher } from '../mcp/helpers.js';
import { makeProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A runtime on `server` with `mcp_servers`, connected in the background; `warned(re)` awaits a warning. */
async function startRuntime(server: ScriptedServer, mcpServers: Record<string, object>) {
  const p = makeProject({
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
  it('a server that hangs at start delays nothing: the turn runs without it while it is still connecting', async () => {
    const server = await scriptedServer(script().text('answered'));
    const hanging = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    const { runtime, warnings } = await startRuntime(server, { hanging });
    const result = await runtime.prompt('hi');
    expect(result.text).toBe('answered');
    expect(mcpTools(server, 0)).toEqual([]);
    // Still connecting when the answer came: the run did not wait for its 30 s connect timeout.
    expect(runtime.mcpStatus()).toEqual([expect.objectContaining({ name: 'hanging', state: 'connecting' })]);
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
});
