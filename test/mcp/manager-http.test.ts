import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type McpManager, startMcp } from '../../src/mcp/manager.js';
import { toolContext, toolNamed, warningWatcher } from './helpers.js';

/** A fresh MCP server per request: the stateless streamable HTTP mode. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'delete_note',
    {
      description: 'Deletes a note',
      inputSchema: { id: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ id }) => ({ content: [{ type: 'text', text: `no note ${id}` }], isError: true }),
  );
  server.registerTool(
    'save_note',
    { description: 'Saves a note', inputSchema: { text: z.string() } },
    async () => ({
      content: [{ type: 'text', text: 'saved' }],
    }),
  );
  return server;
}

let http: Server;
let url: string;
const seenHeaders: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  http = createServer(async (req, res) => {
    seenHeaders.push(req.headers);
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

describe('startMcp over streamable HTTP', () => {
  let manager: McpManager;
  const warnings: string[] = [];

  beforeAll(async () => {
    manager = startMcp(
      { notes: { url, headers: { authorization: 'Bearer test-token' } } },
      { cwd: process.cwd(), onWarning: (message) => warnings.push(message) },
    );
    await manager.ready;
  });

  afterAll(() => manager.close());

  it('lists the server tools with the mcp__notes__ prefix and no pid', () => {
    expect(manager.tools().map((tool) => tool.name)).toEqual([
      'mcp__notes__add',
      'mcp__notes__delete_note',
      'mcp__notes__save_note',
    ]);
    expect(manager.status()).toEqual([{ name: 'notes', state: 'connected', toolCount: 3 }]);
    expect(warnings).toEqual([]);
  });

  it('sends the configured headers', () => {
    expect(seenHeaders.length).toBeGreaterThan(0);
    expect(seenHeaders.every((headers) => headers.authorization === 'Bearer test-token')).toBe(true);
  });

  it('classes tools by annotation: read, destructive, and write when unannotated', () => {
    const tools = manager.tools();
    expect(toolNamed(tools, 'mcp__notes__add').safety).toBe('read');
    expect(toolNamed(tools, 'mcp__notes__delete_note').safety).toBe('destructive');
    expect(toolNamed(tools, 'mcp__notes__save_note').safety).toBe('write');
  });

  it('calls a tool and returns its text', async () => {
    const add = toolNamed(manager.tools(), 'mcp__notes__add');
    expect(await add.execute({ a: 2, b: 3 }, toolContext())).toEqual({ output: '5' });
  });

  it('maps a tool-reported failure to isError', async () => {
    const remove = toolNamed(manager.tools(), 'mcp__notes__delete_note');
    expect(await remove.execute({ id: 'n1' }, toolContext())).toEqual({
      output: 'no note n1',
      isError: true,
    });
  });
});

describe('startMcp against an HTTP address with no server', () => {
  it('warns once and lists no tools', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const warnings: string[] = [];
    const manager = startMcp(
      { gone: { url: `http://127.0.0.1:${port}/mcp` } },
      { cwd: process.cwd(), onWarning: (message) => warnings.push(message) },
    );
    await manager.ready;
    await manager.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^MCP server "gone" failed to start: .*ECONNREFUSED/);
    expect(manager.tools()).toEqual([]);
  });
});

/** A stateless MCP server on `port` (0: any free one). */
const serve = (port: number) =>
  new Promise<Server>((resolve) => {
    const server = createServer(async (req, res) => {
      const mcp = buildServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    });
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
/** Stops the server, dropping open connections as a crash would. */
const stop = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('a streamable HTTP server that goes away mid-session', () => {
  it('has its tools withdrawn after a call finds it gone, and back once it answers again', async () => {
    let server = await serve(0);
    const port = (server.address() as AddressInfo).port;
    const { warnings, onWarning, warned } = warningWatcher();
    const manager = startMcp(
      { notes: { url: `http://127.0.0.1:${port}/mcp` } },
      { cwd: process.cwd(), onWarning, reconnectBaseMs: 20 },
    );
    try {
      await manager.ready;
      const add = toolNamed(manager.tools(), 'mcp__notes__add');
      await stop(server);
      const result = await add.execute({ a: 1, b: 2 }, toolContext());
      expect(result).toMatchObject({
        isError: true,
        output: expect.stringMatching(/^MCP server "notes" failed the call/),
      });
      await warned(/"notes" disconnected: the server did not answer a call/);
      expect(manager.tools()).toEqual([]);
      expect(manager.status()[0].state).toBe('reconnecting');
      server = await serve(port);
      await warned(/"notes" reconnected \(3 tools\)/);
      expect(
        await toolNamed(manager.tools(), 'mcp__notes__add').execute({ a: 1, b: 2 }, toolContext()),
      ).toEqual({
        output: '3',
      });
      expect(warnings).toHaveLength(2);
    } finally {
      await manager.close();
      await stop(server);
    }
  });
});

describe('a streamable HTTP server that dies while idle', () => {
  it('is noticed by the idle ping without any call: tools withdrawn, reconnected with backoff, back again', async () => {
    let server = await serve(0);
    const port = (server.address() as AddressInfo).port;
    const { warnings, onWarning, warned } = warningWatcher();
    const manager = startMcp(
      { notes: { url: `http://127.0.0.1:${port}/mcp` } },
      { cwd: process.cwd(), onWarning, reconnectBaseMs: 20, pingIntervalMs: 50 },
    );
    try {
      await manager.ready;
      expect(manager.tools()).toHaveLength(3);
      await stop(server);
      await warned(/"notes" disconnected: the server stopped answering pings/);
      expect(manager.tools()).toEqual([]);
      expect(manager.status()[0].state).toBe('reconnecting');
      server = await serve(port);
      await warned(/"notes" reconnected \(3 tools\)/);
      expect(manager.status()[0]).toMatchObject({ state: 'connected', toolCount: 3 });
      expect(warnings).toHaveLength(2);
    } finally {
      await manager.close();
      await stop(server);
    }
  });
});
