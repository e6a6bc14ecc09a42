import type { McpServerConfig } from '../config/schema.js';
import type { AnyTool } from '../tool/tool.js';
import { connectServer, McpConnectError, type McpConnection } from './connect.js';
import { disambiguate, mcpToolName, serverNameParts } from './names.js';
import { createMcpTool, type McpTool } from './tool.js';

export type McpServerState = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed';

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
  /** Delay before the first reconnect of a server that died; doubled each try up to 30 s. */
  reconnectBaseMs?: number;
  /** Reconnect tries before a dead server is given up (state `failed`). */
  maxReconnects?: number;
  /** How often an idle HTTP server is pinged, so its death is noticed between calls; 0 turns it off. */
  pingIntervalMs?: number;
}

export interface McpManager {
  /** Settles (never rejects) once every server has connected or failed. */
  ready: Promise<void>;
  /** Like `ready`, but settles after `ms` at the latest. */
  readyWithin(ms: number): Promise<void>;
  /** Tools of the servers connected now: servers in config order, each one's tools by name. */
  tools(): AnyTool[];
  /**
   * Counts changes to `tools()` (a server connected, died, came back, or changed its tool list), so
   * callers apply them when they choose.
   */
  revision(): number;
  status(): McpServerStatus[];
  /** Ends every connection and child process; servers still connecting are abandoned. */
  close(): Promise<void>;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;
export const DEFAULT_RECONNECT_BASE_MS = 1000;
export const DEFAULT_MAX_RECONNECTS = 8;
export const DEFAULT_PING_INTERVAL_MS = 15_000;
const MAX_RECONNECT_DELAY_MS = 30_000;

interface ServerEntry {
  name: string;
  state: McpServerState;
  reason?: string;
  connection?: McpConnection;
  tools: McpTool[];
  settled: Promise<void>;
}

/** Sorted by name, so a server that lists its tools in another order after a restart changes no prompt. */
function buildTools(server: string, serverPart: string, connection: McpConnection): McpTool[] {
  const taken = new Set<string>();
  const remotes = [...connection.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return remotes.map((remote) => {
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
  const reconnectBaseMs = options.reconnectBaseMs ?? DEFAULT_RECONNECT_BASE_MS;
  const maxReconnects = options.maxReconnects ?? DEFAULT_MAX_RECONNECTS;
  const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const shutdown = new AbortController();
  const cleanups: Promise<void>[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const parts = serverNameParts(Object.keys(servers));
  let closing: Promise<void> | undefined;
  let revision = 0;

  const setState = (entry: ServerEntry, state: McpServerState, reason?: string): void => {
    entry.state = shutdown.signal.aborted ? 'closed' : state;
    entry.reason = reason;
    if (entry.state !== 'connected') {
      entry.tools = [];
      entry.connection = undefined;
    }
    revision += 1;
  };

  /** One connection try; the failure reason, or undefined once connected. */
  const tryConnect = async (entry: ServerEntry, config: McpServerConfig): Promise<string | undefined> => {
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
        pingIntervalMs,
        onUnexpectedClose: (reason) => {
          if (entry.connection === connection) lost(entry, config, reason);
        },
        onToolsChanged: () => {
          if (entry.connection !== connection || entry.state !== 'connected') return;
          entry.tools = buildTools(entry.name, parts.get(entry.name) ?? entry.name, connection);
          revision += 1;
        },
      });
      if (shutdown.signal.aborted) {
        cleanups.push(connection.close());
        setState(entry, 'closed');
        return undefined;
      }
      entry.tools = buildTools(entry.name, parts.get(entry.name) ?? entry.name, connection);
      entry.connection = connection;
      setState(entry, 'connected');
      return undefined;
    } catch (error) {
      if (error instanceof McpConnectError) cleanups.push(error.closing);
      return error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timeout);
    }
  };

  /** A connected server went away: its tools are withdrawn and it is tried again with backoff. */
  const lost = (entry: ServerEntry, config: McpServerConfig, reason: string): void => {
    if (shutdown.signal.aborted) return;
    // What is left of the old session (an exited child's pipes) is released.
    if (entry.connection) cleanups.push(entry.connection.close());
    setState(entry, 'reconnecting', reason);
    options.onWarning(
      `MCP server "${entry.name}" disconnected: ${reason}; reconnecting in ${formatSeconds(reconnectBaseMs)}`,
    );
    entry.settled = reconnect(entry, config, 1, reason);
  };

  const reconnect = async (
    entry: ServerEntry,
    config: McpServerConfig,
    attempt: number,
    reason: string,
  ): Promise<void> => {
    if (attempt > maxReconnects) {
      setState(entry, 'failed', reason);
      options.onWarning(
        `MCP server "${entry.name}" did not come back after ${maxReconnects} reconnect attempts: ${reason}`,
      );
      return;
    }
    const delay = Math.min(reconnectBaseMs * 2 ** (attempt - 1), MAX_RECONNECT_DELAY_MS);
    const waited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve(true);
      }, delay);
      timers.add(timer);
      shutdown.signal.addEventListener('abort', () => resolve(false), { once: true });
    });
    if (!waited) return;
    const failure = await tryConnect(entry, config);
    if (failure === undefined) {
      if (entry.state === 'connected')
        options.onWarning(`MCP server "${entry.name}" reconnected (${entry.tools.length} tools)`);
      return;
    }
    await reconnect(entry, config, attempt + 1, failure);
  };

  const connect = async (entry: ServerEntry, config: McpServerConfig): Promise<void> => {
    const failure = await tryConnect(entry, config);
    if (failure === undefined) return;
    setState(entry, 'failed', failure);
    if (entry.state === 'failed') options.onWarning(`MCP server "${entry.name}" failed to start: ${failure}`);
  };

  const entries: ServerEntry[] = Object.entries(servers).map(([name, config]) => {
    const entry: ServerEntry = { name, state: 'connecting', tools: [], settled: Promise.resolve() };
    entry.settled = connect(entry, config);
    return entry;
  });
  const ready = Promise.all(entries.map((entry) => entry.settled)).then(() => undefined);

  const close = (): Promise<void> => {
    closing ??= (async () => {
      shutdown.abort(new Error('MCP is shutting down'));
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(entries.map((entry) => entry.settled));
      const open = entries.flatMap((entry) => (entry.connection === undefined ? [] : [entry.connection]));
      for (const entry of entries) setState(entry, 'closed');
      await Promise.all([...open.map((connection) => connection.close()), ...cleanups]);
    })();
    return closing;
  };

  if (options.signal?.aborted) void close();
  else options.signal?.addEventListener('abort', () => void close(), { once: true });

  return {
    ready,
    readyWithin: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        void ready.then(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    tools: () => entries.flatMap((entry) => (entry.state === 'connected' ? entry.tools : [])),
    revision: () => revision,
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
