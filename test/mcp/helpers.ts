import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyTool, ShellJobs, ToolContext } from '../../src/tool/tool.js';

const noJobs: ShellJobs = {
  start: () => {
    throw new Error('MCP tests start no shell jobs');
  },
  get: () => undefined,
  list: () => [],
  killAll: () => undefined,
};

export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    root: process.cwd(),
    signal,
    agent: 'main',
    sessionId: 'test-session',
    jobs: noJobs,
    todos: { get: () => [], set: () => undefined },
  };
}

/** The server-everything entry script, found through its package.json `bin`. */
export function everythingServerEntry(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  const [entry] = Object.values(manifest.bin);
  return path.join(path.dirname(manifestPath), entry);
}

/** Live child processes of this process, read from /proc (zombies count as gone: they have exited). */
export function childPids(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, …
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') children.push(Number(entry));
  }
  return children;
}

export function toolNamed(tools: readonly AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/**
 * A stdio MCP server (`node -e <source>`) with a `crash` tool that exits the process and a `ping` tool.
 * While `holdFile` exists it refuses to start (exit 1, saying so on stderr), so a test decides when a
 * restart may succeed.
 */
export function fragileServerSource(holdFile: string): string {
  const require = createRequire(import.meta.url);
  return `
    const { existsSync } = require('node:fs');
    if (existsSync(${JSON.stringify(holdFile)})) {
      console.error('fragile: held');
      process.exit(1);
    }
    const { McpServer } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'))});
    const { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
    const server = new McpServer({ name: 'fragile', version: '1.0.0' });
    server.registerTool('crash', { description: 'Exits the server' }, async () => {
      console.error('fragile: crashing on purpose');
      process.exit(3);
    });
    server.registerTool('ping', { description: 'Answers pong' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    server.connect(new StdioServerTransport());
  `;
}

/** Collects warnings; `warned(pattern)` resolves once one matching has arrived (event-driven waits). */
export function warningWatcher() {
  const warnings: string[] = [];
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  return {
    warnings,
    onWarning(message: string): void {
      warnings.push(message);
      for (const waiter of waiters.filter((w) => w.pattern.test(message))) waiter.resolve();
    },
    warned(pattern: RegExp): Promise<void> {
      return new Promise((resolve) => {
        if (warnings.some((w) => pattern.test(w))) resolve();
        else waiters.push({ pattern, resolve });
      });
    },
  };
}

/** A fresh path for `fragileServerSource`'s hold file (not created). */
export function holdFilePath(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'cadre-mcp-')), 'hold');
}

/**
 * A stdio MCP server (`node -e <source>`) with one tool, `grow`, whose call adds a tool `extra`: the SDK
 * then sends `notifications/tools/list_changed` before the call's answer.
 */
export function growingServerSource(): string {
  const require = createRequire(import.meta.url);
  return `
    const { McpServer } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'))});
    const { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
    const server = new McpServer({ name: 'growing', version: '1.0.0' });
    server.registerTool('grow', { description: 'Adds the tool extra' }, async () => {
      server.registerTool('extra', { description: 'Added by grow' }, async () => ({
        content: [{ type: 'text', text: 'extra ran' }],
      }));
      return { content: [{ type: 'text', text: 'grown' }] };
    });
    server.connect(new StdioServerTransport());
  `;
}
