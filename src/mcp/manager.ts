import type { McpServerConfig } from '../config/schema.js';
import type { AnyTool } from '../tool/tool.js';
import { connectServer, McpConnectError, type McpConnection } from './connect.js';
import { disambiguate, mcpToolName, serverNameParts } from './names.js';
import { createMcpTool, type McpTool } from './tool.js';

export type McpServerState = 'connecting' | 'connected' | 'failed' | 'closed';

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** Why the server failed (set when state is `failed`). */
  reason?: string;
  toolCount: number;
  /** The child process of a stdio server while it runs. */
  pid?: number;
}

export interface StartMcpOptions {
  /** Project root: a stdio server's relative `cwd` is resolved against it, and it is the default cwd. */
  cwd: string;
  /** One call per server that fails to start, naming it and the reason. */
  onWarning: (message: string) => void;
  /** Aborting it closes every server, like `close()`. */
  signal?: AbortSignal;
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
}

export interface McpManager {
  /** Settles (never rejects) once every server has connected or failed. */
  ready: Promise<void>;
  /** Tools of the servers connected now, in config order. */
  tools(): AnyTool[];
  status(): McpServerStatus[];
  /** Ends every connection and child process; servers still connecting are abandoned. */
  close(): Promise<void>;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;

interface ServerEntry {
  name: string;
  state: McpServerState;
  reason?: string;
  connection?: McpConnection;
  tools: McpTool[];
  settled: Promise<void>;
}

function buildTools(server: string, serverPart: string, connection: McpConnection): McpTool[] {
  const taken = new Set<string>();
  return connection.tools.map((remote) => {
    const name = disambiguate(mcpToolName(serverPart, remote.name), remote.name, taken);
    taken.add(name);
    return createMcpTool(server, remote, name, connection.call);
  });
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/** Connects every configured MCP server in the background at once (SPEC 14). Never throws. */
export function startMcp(servers: Record<string, McpServerConfig>, options: StartMcpOptions): McpManager {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const shutdown = new AbortController();
  const cleanups: Promise<void>[] = [];
  const parts = serverNameParts(Object.keys(servers));
  let closing: Promise<void> | undefined;

  const fail = (entry: ServerEntry, reason: string, warning: string): void => {
    if (shutdown.signal.aborted) {
      entry.state = 'closed';
      return;
    }
    entry.state = 'failed';
    entry.reason = reason;
    entry.tools = [];
    options.onWarning(warning);
  };

  const connect = async (entry: ServerEntry, config: McpServerConfig): Promise<void> => {
    const timer = new AbortController();
    const timeout = setTimeout(
      () => timer.abort(new Error(`did not connect within ${formatSeconds(connectTimeoutMs)}`)),
      connectTimeoutMs,
    );
    try {
      const connection = await connectServer(entry.name, config, {
        cwd: options.cwd,
        signal: AbortSignal.any([shutdown.signal, timer.signal]),
        connectTimeoutMs,
        callTimeoutMs,
        onUnexpectedClose: (reason) => {
          if (entry.state !== 'connected') return;
          fail(entry, reason, `MCP server "${entry.name}" disconnected: ${reason}`);
        },
      });
      if (shutdown.signal.aborted) {
        cleanups.push(connection.close());
        entry.state = 'closed';
        return;
      }
      entry.connection = connection;
      entry.tools = buildTools(entry.name, parts.get(entry.name) ?? entry.name, connection);
      entry.state = 'connected';
    } catch (error) {
      if (error instanceof McpConnectError) cleanups.push(error.closing);
      const reason = error instanceof Error ? error.message : String(error);
      fail(entry, reason, `MCP server "${entry.name}" failed to start: ${reason}`);
    } finally {
      clearTimeout(timeout);
    }
  };

  const entries: ServerEntry[] = Object.entries(servers).map(([name, config]) => {
    const entry: ServerEntry = { name, state: 'connecting', tools: [], settled: Promise.resolve() };
    entry.settled = connect(entry, config);
    return entry;
  });

  const close = (): Promise<void> => {
    closing ??= (async () => {
      shutdown.abort(new Error('MCP is shutting down'));
      await Promise.all(entries.map((entry) => entry.settled));
      const open = entries.flatMap((entry) => (entry.connection === undefined ? [] : [entry.connection]));
      for (const entry of entries) {
        entry.state = 'closed';
        entry.tools = [];
        entry.connection = undefined;
      }
      await Promise.all([...open.map((connection) => connection.close()), ...cleanups]);
    })();
    return closing;
  };

  if (options.signal?.aborted) void close();
  else options.signal?.addEventListener('abort', () => void close(), { once: true });

  return {
    ready: Promise.all(entries.map((entry) => entry.settled)).then(() => undefined),
    tools: () => entries.flatMap((entry) => (entry.state === 'connected' ? entry.tools : [])),
    status: () =>
      entries.map((entry) => {
        const status: McpServerStatus = {
          name: entry.name,
          state: entry.state,
          toolCount: entry.tools.length,
        };
        if (entry.reason !== undefined) status.reason = entry.reason;
        if (entry.state === 'connected' && entry.connection?.pid != null) status.pid = entry.connection.pid;
        return status;
      }),
    close,
  };
}
