import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/config/schema.js';
import { type McpManager, startMcp } from '../../src/mcp/manager.js';
import {
  childPids,
  everythingServerEntry,
  fragileServerSource,
  growingServerSource,
  holdFilePath,
  toolContext,
  toolNamed,
  warningWatcher,
} from './helpers.js';

const everything: McpServerConfig = { command: process.execPath, args: [everythingServerEntry(), 'stdio'] };

function start(servers: Record<string, McpServerConfig>, connectTimeoutMs?: number) {
  const warnings: string[] = [];
  const manager = startMcp(servers, {
    cwd: process.cwd(),
    onWarning: (message) => warnings.push(message),
    connectTimeoutMs,
  });
  return { manager, warnings };
}

describe('startMcp over stdio with server-everything', () => {
  let manager: McpManager;
  let warnings: string[];

  beforeAll(async () => {
    ({ manager, warnings } = start({ everything }));
    expect(manager.status()).toEqual([{ name: 'everything', state: 'connecting', toolCount: 0 }]);
    await manager.ready;
  });

  afterAll(() => manager.close());

  it('lists the tools under the mcp__everything__ prefix once connected', () => {
    const names = manager.tools().map((tool) => tool.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    expect(names.every((name) => /^mcp__everything__[A-Za-z0-9_-]+$/.test(name) && name.length <= 64)).toBe(
      true,
    );
    expect(warnings).toEqual([]);
    const [status] = manager.status();
    expect(status).toMatchObject({ name: 'everything', state: 'connected', toolCount: names.length });
    expect(childPids()).toContain(status.pid);
  });

  it('gives each tool its server description and schema and a none subject', () => {
    const echo = toolNamed(manager.tools(), 'mcp__everything__echo');
    expect(echo.description).toBe('Echoes back the input string');
    expect(echo.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(echo.subject({ message: 'x' })).toEqual({ kind: 'none' });
  });

  it('maps annotations: readOnlyHint tools are read, tools without it are write', () => {
    const tools = manager.tools();
    // server-everything marks echo and get-sum readOnlyHint: true; toggle-simulated-logging has both hints false.
    expect(toolNamed(tools, 'mcp__everything__echo').safety).toBe('read');
    expect(toolNamed(tools, 'mcp__everything__get-sum').safety).toBe('read');
    expect(toolNamed(tools, 'mcp__everything__toggle-simulated-logging').safety).toBe('write');
  });

  it('calls echo for real', async () => {
    const echo = toolNamed(manager.tools(), 'mcp__everything__echo');
    expect(await echo.execute({ message: 'hello from cadre' }, toolContext())).toEqual({
      output: 'Echo: hello from cadre',
    });
  });

  it('maps a server-side input error to isError', async () => {
    const echo = toolNamed(manager.tools(), 'mcp__everything__echo');
    const result = await echo.execute({}, toolContext());
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/message/);
  });

  it('describes image content instead of dumping its data', async () => {
    const image = toolNamed(manager.tools(), 'mcp__everything__get-tiny-image');
    const result = await image.execute({}, toolContext());
    expect(result.isError).toBeUndefined();
    expect(result.output).toMatch(/\[image: image\/png, \d+ bytes\]/);
  });

  it('honours the call signal: an aborted call returns a cancelled error', async () => {
    const longRunning = toolNamed(manager.tools(), 'mcp__everything__trigger-long-running-operation');
    const controller = new AbortController();
    const pending = longRunning.execute({ duration: 1, steps: 1 }, toolContext(controller.signal));
    controller.abort();
    expect(await pending).toEqual({
      output: 'MCP tool "trigger-long-running-operation" was cancelled',
      isError: true,
    });
  });
});

describe('closing', () => {
  it('close() ends the child process and empties the tool list', async () => {
    const { manager } = start({ everything });
    await manager.ready;
    const pid = manager.status()[0].pid;
    expect(childPids()).toContain(pid);
    await manager.close();
    expect(childPids()).not.toContain(pid);
    expect(manager.tools()).toEqual([]);
    expect(manager.status()[0].state).toBe('closed');
  });

  it('aborting the start signal closes every server without warnings', async () => {
    const controller = new AbortController();
    const warnings: string[] = [];
    const manager = startMcp(
      { everything },
      { cwd: process.cwd(), onWarning: (message) => warnings.push(message), signal: controller.signal },
    );
    await manager.ready;
    const pid = manager.status()[0].pid;
    controller.abort();
    await manager.close();
    expect(childPids()).not.toContain(pid);
    expect(warnings).toEqual([]);
  });

  it('closing while servers are still connecting abandons them silently and leaves no child', async () => {
    const before = childPids();
    const { manager, warnings } = start({ everything });
    await manager.close();
    await manager.ready;
    expect(manager.status()).toEqual([{ name: 'everything', state: 'closed', toolCount: 0 }]);
    expect(warnings).toEqual([]);
    expect(childPids()).toEqual(before);
  });
});

describe('startMcp with servers that fail', () => {
  let manager: McpManager | undefined;

  afterEach(async () => {
    await manager?.close();
    manager = undefined;
  });

  it('warns once about a command that does not exist and keeps the other servers', async () => {
    const started = start({ missing: { command: 'cadre-no-such-mcp-server' }, everything });
    manager = started.manager;
    await manager.ready;
    expect(started.warnings).toEqual([
      'MCP server "missing" failed to start: command not found: cadre-no-such-mcp-server',
    ]);
    expect(manager.tools().some((tool) => tool.name === 'mcp__everything__echo')).toBe(true);
    expect(manager.tools().some((tool) => tool.name.startsWith('mcp__missing__'))).toBe(false);
    expect(manager.status()).toEqual([
      {
        name: 'missing',
        state: 'failed',
        reason: 'command not found: cadre-no-such-mcp-server',
        toolCount: 0,
      },
      expect.objectContaining({ name: 'everything', state: 'connected' }),
    ]);
  });

  it('warns with a timeout about a server that hangs on start, and close() still ends it', async () => {
    const hang: McpServerConfig = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    const before = childPids();
    const started = start({ hang }, 500);
    manager = started.manager;
    await manager.ready;
    expect(started.warnings).toEqual(['MCP server "hang" failed to start: did not connect within 0.5s']);
    expect(manager.status()[0]).toMatchObject({ state: 'failed', reason: 'did not connect within 0.5s' });
    await manager.close();
    expect(childPids()).toEqual(before);
  });

  it('reports what a server that exits at start-up said on stderr', async () => {
    const crash: McpServerConfig = {
      command: process.execPath,
      args: ['-e', 'console.error("boom: API key missing"); process.exit(1)'],
    };
    const started = start({ crash });
    manager = started.manager;
    await manager.ready;
    expect(started.warnings).toHaveLength(1);
    expect(started.warnings[0]).toMatch(
      /^MCP server "crash" failed to start: .*\(stderr: boom: API key missing\)$/,
    );
  });

  it('passes env merged over the process environment and resolves cwd against the project', async () => {
    const probe: McpServerConfig = {
      command: process.execPath,
      args: [
        '-e',
        'console.error([process.env.CADRE_MCP_PROBE, process.cwd(), Boolean(process.env.PATH)].join(" ")); process.exit(1)',
      ],
      env: { CADRE_MCP_PROBE: 'from-config' },
      cwd: 'test',
    };
    const started = start({ probe });
    manager = started.manager;
    await manager.ready;
    expect(started.warnings[0]).toContain(`(stderr: from-config ${process.cwd()}/test true)`);
  });

  function startFragile(options: { reconnectBaseMs: number; maxReconnects?: number }) {
    const hold = holdFilePath();
    const watcher = warningWatcher();
    const fragile = startMcp(
      { fragile: { command: process.execPath, args: ['-e', fragileServerSource(hold)] } },
      { cwd: process.cwd(), onWarning: watcher.onWarning, ...options },
    );
    manager = fragile;
    return { hold, fragile, ...watcher };
  }

  it('withdraws the tools of a server that dies, reconnects with backoff and brings them back', async () => {
    const { hold, fragile, warnings, warned } = startFragile({ reconnectBaseMs: 20 });
    await fragile.ready;
    expect(fragile.tools().map((t) => t.name)).toEqual(['mcp__fragile__crash', 'mcp__fragile__ping']);
    const before = fragile.revision();
    // Held: the restarts fail until the test lets go.
    writeFileSync(hold, '');
    const crash = toolNamed(fragile.tools(), 'mcp__fragile__crash');
    const result = await crash.execute({}, toolContext());
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^MCP server "fragile" failed the call: .*Connection closed/);
    await warned(/disconnected/);
    expect(fragile.status()[0]).toMatchObject({ state: 'reconnecting', toolCount: 0 });
    expect(fragile.tools()).toEqual([]);
    expect(fragile.revision()).toBeGreaterThan(before);
    rmSync(hold);
    await warned(/reconnected/);
    expect(fragile.status()[0]).toMatchObject({ state: 'connected', toolCount: 2 });
    expect(fragile.tools().map((t) => t.name)).toEqual(['mcp__fragile__crash', 'mcp__fragile__ping']);
    expect(await toolNamed(fragile.tools(), 'mcp__fragile__ping').execute({}, toolContext())).toMatchObject({
      output: 'pong',
    });
    expect(warnings).toEqual([
      'MCP server "fragile" disconnected: connection closed (stderr: fragile: crashing on purpose); reconnecting in 0s',
      'MCP server "fragile" reconnected (2 tools)',
    ]);
  });

  it('gives a dead server up after its reconnect attempts, saying why', async () => {
    const { hold, fragile, warnings, warned } = startFragile({ reconnectBaseMs: 5, maxReconnects: 2 });
    await fragile.ready;
    writeFileSync(hold, '');
    await toolNamed(fragile.tools(), 'mcp__fragile__crash').execute({}, toolContext());
    await warned(/did not come back/);
    expect(warnings.at(-1)).toMatch(
      /^MCP server "fragile" did not come back after 2 reconnect attempts: .*\(stderr: fragile: held\)$/,
    );
    expect(fragile.status()[0]).toMatchObject({ state: 'failed', toolCount: 0 });
    expect(fragile.tools()).toEqual([]);
  });

  it('closing while a dead server waits to reconnect stops the reconnecting', async () => {
    const { fragile, warnings, warned } = startFragile({ reconnectBaseMs: 60_000 });
    await fragile.ready;
    await toolNamed(fragile.tools(), 'mcp__fragile__crash').execute({}, toolContext());
    await warned(/disconnected/);
    await fragile.close();
    expect(fragile.status()[0].state).toBe('closed');
    expect(warnings).toHaveLength(1);
  });

  it('waits for servers at most as long as asked', async () => {
    const started = start({
      hang: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
    });
    manager = started.manager;
    await manager.readyWithin(10);
    expect(manager.status()[0].state).toBe('connecting');
  });

  it('starts nothing and settles at once with no servers', async () => {
    const started = start({});
    manager = started.manager;
    await manager.ready;
    expect(manager.tools()).toEqual([]);
    expect(manager.status()).toEqual([]);
    expect(started.warnings).toEqual([]);
  });
});

describe('a server that changes its tool list (notifications/tools/list_changed)', () => {
  let manager: McpManager | undefined;

  afterEach(async () => {
    await manager?.close();
  });

  it('is re-listed: the tool a call added is there when the call returns, and the revision moved', async () => {
    const { manager: growing, warnings } = start({
      growing: { command: process.execPath, args: ['-e', growingServerSource()] },
    });
    manager = growing;
    await growing.ready;
    expect(growing.tools().map((t) => t.name)).toEqual(['mcp__growing__grow']);
    const before = growing.revision();
    const result = await toolNamed(growing.tools(), 'mcp__growing__grow').execute({}, toolContext());
    expect(result).toMatchObject({ output: 'grown' });
    expect(growing.tools().map((t) => t.name)).toEqual(['mcp__growing__extra', 'mcp__growing__grow']);
    expect(growing.revision()).toBeGreaterThan(before);
    expect(growing.status()[0]).toMatchObject({ state: 'connected', toolCount: 2 });
    expect(await toolNamed(growing.tools(), 'mcp__growing__extra').execute({}, toolContext())).toMatchObject({
      output: 'extra ran',
    });
    expect(warnings).toEqual([]);
  });
});
