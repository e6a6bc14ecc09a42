import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../config/schema.js';
import { toToolResult } from './content.js';
import type { CallRemoteTool, RemoteTool } from './tool.js';

/** A live session with one MCP server. */
export interface McpConnection {
  /** The server's tools as last listed (re-listed when it sends `notifications/tools/list_changed`). */
  tools: RemoteTool[];
  /** The child's pid for a stdio server; null over HTTP. */
  pid: number | null;
  call: CallRemoteTool;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Directory a stdio server's relative `cwd` is resolved against (and its default). */
  cwd: string;
  /** Aborts connecting; its reason becomes the failure. */
  signal: AbortSignal;
  /** Upper bound on the SDK's own initialize timeout, so the caller's signal decides. */
  connectTimeoutMs: number;
  /** Per-call timeout, reset whenever the server reports progress. */
  callTimeoutMs: number;
  /** The connection ended without cadre closing it; `reason` says why when known. */
  onUnexpectedClose(reason: string): void;
  /** The server changed its tool list and `tools` now holds the new one. */
  onToolsChanged(): void;
  /**
   * HTTP only: while no call is running, a `ping` this often notices a server that went away between
   * calls (stdio notices through the child's exit). 0 turns it off.
   */
  pingIntervalMs: number;
}

/** Failure to connect; `closing` settles once whatever was started (a child process) is gone. */
export class McpConnectError extends Error {
  constructor(
    message: string,
    readonly closing: Promise<void>,
  ) {
    super(message);
    this.name = 'McpConnectError';
  }
}

const CLIENT_INFO = { name: 'cadre', version: '0.1.0' };
const STDERR_TAIL_CHARS = 2000;

/** The message, with its cause's when there is one (`fetch failed` alone does not say the port is closed). */
function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

function processEnv(overrides: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...overrides };
}

/** Keeps the last bytes a stdio server wrote to stderr: its own words are the best failure reason. */
class StderrTail {
  private text = '';

  push(chunk: unknown): void {
    this.text = (this.text + String(chunk)).slice(-STDERR_TAIL_CHARS);
  }

  lastLine(): string | undefined {
    const lines = this.text.split('\n').map((line) => line.trim());
    return lines.filter((line) => line !== '').at(-1);
  }
}

interface OpenedTransport {
  transport: Transport;
  /** The stdio child's pid once spawned; it outlives the SDK forgetting the process on close. */
  pid(): number | null;
  stderr: StderrTail;
}

async function openTransport(config: McpServerConfig, cwd: string): Promise<OpenedTransport> {
  const stderr = new StderrTail();
  if ('command' in config) {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    let pid: number | null = null;
    let closing: Promise<void> | undefined;
    // The SDK closes a transport itself when initialize fails; sharing that one close lets cadre await it
    // (a second close would find no process and return at once), and remembering the pid lets cadre hurry it.
    class TrackedStdioTransport extends StdioClientTransport {
      override async start(): Promise<void> {
        await super.start();
        pid = this.pid;
      }

      override close(): Promise<void> {
        closing ??= super.close();
        return closing;
      }
    }
    const transport = new TrackedStdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: processEnv(config.env),
      cwd: path.resolve(cwd, config.cwd ?? '.'),
      // Piped, not inherited: a server's logs must not scribble over cadre's terminal.
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => stderr.push(chunk));
    return { transport, pid: () => pid, stderr };
  }
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers ?? {} },
  });
  return { transport, pid: () => null, stderr };
}

function describeFailure(error: unknown, config: McpServerConfig, stderr: StderrTail): string {
  if ('command' in config && errorCode(error) === 'ENOENT') return `command not found: ${config.command}`;
  const said = stderr.lastLine();
  return said === undefined ? errorMessage(error) : `${errorMessage(error)} (stderr: ${said})`;
}

async function listAllTools(client: Client, signal: AbortSignal): Promise<RemoteTool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: RemoteTool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal });
    for (const tool of page.tools) {
      tools.push({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
      });
    }
    if (cursor !== undefined) seenCursors.add(cursor);
    cursor = page.nextCursor;
  } while (cursor !== undefined && !seenCursors.has(cursor));
  return tools;
}

/** A child that failed to become a server is not worth the SDK's polite two-second stdin wait. */
function closeFailed(opened: OpenedTransport): Promise<void> {
  const pid = opened.pid();
  const closing = opened.transport.close().catch(() => undefined);
  if (pid !== null) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  return closing;
}

/** Starts (stdio) or reaches (HTTP) one server, initializes it and lists its tools. */
export async function connectServer(
  name: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const [{ Client }, { ErrorCode, McpError, ToolListChangedNotificationSchema }, opened] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    openTransport(config, options.cwd),
  ]);
  const client = new Client(CLIENT_INFO);
  let tools: RemoteTool[];
  try {
    options.signal.throwIfAborted();
    await client.connect(opened.transport, { signal: options.signal, timeout: options.connectTimeoutMs });
    tools = await listAllTools(client, options.signal);
  } catch (error) {
    const cause = options.signal.aborted ? options.signal.reason : error;
    throw new McpConnectError(describeFailure(cause, config, opened.stderr), closeFailed(opened));
  }

  let closedByCadre = false;
  let lost = false;
  let pinger: NodeJS.Timeout | undefined;
  /** Reported once: the stdio close and a failed HTTP request may both see the same death. */
  const gone = (reason: string): void => {
    if (closedByCadre || lost) return;
    lost = true;
    clearInterval(pinger);
    options.onUnexpectedClose(reason);
  };
  client.onclose = () => {
    const said = opened.stderr.lastLine();
    gone(said === undefined ? 'connection closed' : `connection closed (stderr: ${said})`);
  };
  // Over HTTP nothing else notices a server that went away: a failure below the protocol (no McpError:
  // the request never got an answer) counts as a lost connection. A stdio close is reported by onclose.
  const failedBelowProtocol = (error: unknown, what: string): void => {
    if (!(error instanceof McpError) && !('command' in config)) gone(`${what}: ${errorMessage(error)}`);
  };

  // A list change is re-listed in order; a call that caused one returns after the new list is in, so the
  // next model turn already offers what the call added.
  let relisting: Promise<void> = Promise.resolve();
  let callsRunning = 0;
  const call: CallRemoteTool = async (tool, args, signal) => {
    callsRunning += 1;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: options.callTimeoutMs,
        resetTimeoutOnProgress: true,
        // Asking for progress is what lets a long call that reports it outlive the timeout.
        onprogress: () => undefined,
      });
      await relisting;
      return toToolResult(result);
    } catch (error) {
      if (signal.aborted) return { output: `MCP tool "${tool}" was cancelled`, isError: true };
      if (!closedByCadre) failedBelowProtocol(error, 'the server did not answer a call');
      return { output: `MCP server "${name}" failed the call: ${errorMessage(error)}`, isError: true };
    } finally {
      callsRunning -= 1;
    }
  };

  const connection: McpConnection = {
    tools,
    pid: opened.pid(),
    call,
    close: async () => {
      closedByCadre = true;
      clearInterval(pinger);
      await client.close().catch(() => undefined);
    },
  };

  if (client.getServerCapabilities()?.tools?.listChanged === true) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      relisting = relisting.then(async () => {
        if (closedByCadre || lost) return;
        try {
          connection.tools = await listAllTools(client, AbortSignal.timeout(options.connectTimeoutMs));
          options.onToolsChanged();
        } catch (error) {
          failedBelowProtocol(error, 'the server did not answer tools/list');
        }
      });
    });
  }

  if (!('command' in config) && options.pingIntervalMs > 0) {
    pinger = setInterval(() => {
      if (callsRunning > 0) return;
      client.ping({ timeout: options.pingIntervalMs }).catch((error: unknown) => {
        // An answer that is an error still says the server is there; no answer in time says it is not.
        const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
        if (timedOut) gone(`the server stopped answering pings: ${errorMessage(error)}`);
        else failedBelowProtocol(error, 'the server stopped answering pings');
      });
    }, options.pingIntervalMs);
    // Idle pings never keep cadre alive on their own.
    pinger.unref();
  }

  return connection;
}
