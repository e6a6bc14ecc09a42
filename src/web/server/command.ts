import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { SSEStreamingApi } from 'hono/streaming';
import { type AgentOptions, agentFlags, printWarnings, requireProfile } from '../../cli/bootstrap.js';
import { openWorkspace } from '../../config/workspace.js';
import { openSessionStore, type SessionStore } from '../../session/store.js';
import { createWebApp } from './app.js';
import { defaultAssetDir, loadPageAssets } from './assets.js';
import { WebAuth } from './auth.js';
import { SessionHub } from './hub.js';

export interface WebOptions extends AgentOptions {
  /** SPEC 1: `--mode N` is `--agent N`. */
  mode?: string;
  port?: number;
  open?: boolean;
  cwd?: string;
  continue?: boolean;
  resume?: string;
}

/** Loopback only: the page drives an agent that runs commands on this machine. */
const HOST = '127.0.0.1';

/** A clear message for a port that cannot be had, instead of a stack trace. */
export class PortError extends Error {
  override name = 'PortError';
}

function listen(server: ReturnType<typeof createAdaptorServer>, port: number): Promise<number> {
  return new Promise((done, fail) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE')
        fail(
          new PortError(
            `port ${port} on ${HOST} is already in use (another cadre web?); choose one with --port`,
          ),
        );
      else if (error.code === 'EACCES') fail(new PortError(`port ${port} on ${HOST}: permission denied`));
      else fail(error);
    };
    const onListening = () => {
      server.off('error', onError);
      done((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, HOST);
  });
}

/** `--open`: the system's own opener; a machine without one just keeps the printed URL. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`cadre web: could not open a browser; open ${url}\n`));
  child.unref();
}

/**
 * `cadre web`: the session controller behind a page on loopback (SPEC 13). Prints the URL with its one-time
 * token, serves until SIGINT/SIGTERM, then closes the sessions (subagents follow their retention rules).
 * Returns the exit code.
 */
export async function runWebCommand(options: WebOptions): Promise<number> {
  const agent = options.agent ?? options.mode;
  const workspace = openWorkspace(options.cwd, process.env, { trustProject: options.trustProject });
  printWarnings(workspace.warnings, process.stderr);
  requireProfile(workspace, agent);
  const flags = { ...agentFlags({ ...options, agent }), continue: options.continue, resume: options.resume };
  const assets = loadPageAssets(defaultAssetDir());
  let fetchHandler: (request: Request) => Response | Promise<Response> = () =>
    new Response('starting', { status: 503 });
  const server = createAdaptorServer({ fetch: (request: Request) => fetchHandler(request) });
  let port: number;
  try {
    port = await listen(server, options.port ?? 0);
  } catch (error) {
    if (!(error instanceof PortError)) throw error;
    process.stderr.write(`cadre: ${error.message}\n`);
    return 1;
  }

  let store: SessionStore | undefined;
  let hub: SessionHub | undefined;
  const streams = new Set<SSEStreamingApi>();
  const shutdown = async () => {
    for (const stream of streams) await stream.close().catch(() => undefined);
    await new Promise<void>((done) => {
      server.close(() => done());
      if ('closeAllConnections' in server) server.closeAllConnections();
    });
    await hub?.close();
    store?.close();
    const { closeScriptedServers } = await import('../../provider/scripted-route.js');
    await closeScriptedServers();
  };
  try {
    store = openSessionStore(workspace.loaded.globalDir);
    hub = new SessionHub({ workspace, flags, store });
    const first = await hub.start();
    const auth = new WebAuth(port);
    fetchHandler = createWebApp({ port, auth, hub, assets, streams }).fetch;
    const url = `http://${HOST}:${port}/?token=${auth.pendingToken}`;
    process.stdout.write(`cadre web: serving session ${first.controller.sessionId} on ${HOST}:${port}\n`);
    process.stdout.write(`Open ${url}\n`);
    process.stdout.write('The link works once; press Ctrl-C to stop.\n');
    if (options.open) openInBrowser(url);
  } catch (error) {
    await shutdown();
    throw error;
  }

  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second Ctrl-C while closing ends at once.
      process.once('SIGINT', () => process.exit(130));
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stdout.write('cadre web: stopping\n');
  await shutdown();
  return 0;
}
