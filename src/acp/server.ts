import { isAbsolute } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  agent,
  type McpServer,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import type { RuntimeFlags } from '../agent/runtime.js';
import { ConfigError, configDir } from '../config/load.js';
import type { McpServerConfig } from '../config/schema.js';
import { openWorkspace, type Workspace } from '../config/workspace.js';
import type { SessionController } from '../controller/session-controller.js';
import { PermissionRuleError } from '../permission/rules.js';
import { probeSandboxAhead } from '../sandbox/sandbox.js';
import type { SessionStore } from '../session/store.js';
import { ArrivalOrder } from './arrival.js';
import { configOptions, PROFILE_OPTION, sessionModes } from './modes.js';
import { replayUpdates } from './replay.js';
import type { AcpSession } from './session.js';
import { warmModelPath } from './warm.js';

export interface AcpServerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** One line of log; never stdout, which carries the protocol. */
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** The command line's agent flags (`--agent`, `--model`, `--safety`, …) for every session. */
  flags: RuntimeFlags;
  /** `--trust-project`: every session's project is trusted for this run. */
  trustProject?: boolean;
  version: string;
}

/** How long an open session waits for its first prompt before it warms the model path (src/acp/warm.ts). */
const IDLE_WARMUP_MS = 100;

/** JSON-RPC code of ACP's "resource not found" (what `RequestError.sessionNotFound` sends, with our message). */
const RESOURCE_NOT_FOUND = -32002;

/** The client's MCP servers join the project's for that session (stdio and HTTP, as cadre supports). */
function withClientMcp(workspace: Workspace, servers: readonly McpServer[]): Workspace {
  if (servers.length === 0) return workspace;
  const extra: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if ('command' in server) {
      extra[server.name] = {
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
      };
    } else if (server.type === 'http') {
      extra[server.name] = {
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
      };
    }
  }
  const config = {
    ...workspace.loaded.config,
    mcp_servers: { ...workspace.loaded.config.mcp_servers, ...extra },
  };
  return { ...workspace, loaded: { ...workspace.loaded, config } };
}

/** Bad configuration or usage for one session: an error response naming the problem, the server goes on. */
function asRequestError(error: unknown, data: Record<string, unknown>): unknown {
  if (error instanceof ConfigError || error instanceof PermissionRuleError)
    return RequestError.invalidParams(data, error.message);
  return error;
}

/**
 * `cadre acp`: the Agent Client Protocol over stdio (SPEC 12.1). Each ACP session is one session
 * controller; all share one session store. Resolves when the client disconnects, after every session
 * was closed (running turns cancelled, subagents recorded).
 */
export async function runAcpServer(options: AcpServerOptions): Promise<void> {
  // The controller, the runtime and SQLite load after `initialize` is answered, so that answer is fast.
  const importSessionModules = () =>
    Promise.all([
      import('../controller/session-controller.js'),
      import('../session/store.js'),
      import('./session.js'),
    ]);
  let loading: ReturnType<typeof importSessionModules> | undefined;
  let opened: { store: SessionStore; modules: Awaited<ReturnType<typeof importSessionModules>> } | undefined;
  const load = async () => {
    if (!opened) {
      loading ??= importSessionModules();
      const modules = await loading;
      opened = { modules, store: modules[1].openSessionStore(configDir(options.env)) };
    }
    return opened;
  };
  const sessions = new Map<string, AcpSession>();
  /** Per session, its model path warm-up while it waits for its first prompt. */
  const warmups = new Map<string, NodeJS.Timeout>();
  const stopWarmup = (sessionId: string) => {
    clearTimeout(warmups.get(sessionId));
    warmups.delete(sessionId);
  };
  const find = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session)
      throw new RequestError(
        RESOURCE_NOT_FOUND,
        `unknown session "${sessionId}": no session with that id is open (session/new or session/load opens one)`,
        { sessionId },
      );
    return session;
  };
  const open = async (cwd: string, mcpServers: readonly McpServer[], resume?: string) => {
    if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
    const workspace = withClientMcp(
      openWorkspace(cwd, options.env, { trustProject: options.trustProject }),
      mcpServers,
    );
    for (const warning of workspace.warnings) options.log(`warning: ${warning.path}: ${warning.reason}`);
    const [{ store, modules }] = await Promise.all([
      load(),
      probeSandboxAhead(workspace.loaded.config.sandbox ?? 'auto'),
    ]);
    return modules[0].SessionController.open({
      workspace,
      flags: { ...options.flags, resume },
      store,
      interactive: true,
    });
  };
  const attach = async (controller: SessionController): Promise<AcpSession> => {
    const { AcpSession } = (await load()).modules[2];
    const session = new AcpSession(
      controller.sessionId,
      controller,
      connection.client,
      options.log,
      canElicit,
    );
    sessions.set(session.id, session);
    // After the response that tells the client the session exists.
    setImmediate(() => session.announce());
    // Once the session has waited a moment for its first prompt: a prompt written at once (a script) goes
    // first and loads what it needs itself; a person typing one finds the model path loaded.
    stopWarmup(session.id);
    const warmup = setTimeout(() => {
      warmups.delete(session.id);
      warmModelPath(controller.runtime.modelRoute);
    }, IDLE_WARMUP_MS);
    warmup.unref();
    warmups.set(session.id, warmup);
    return session;
  };

  const arrival = new ArrivalOrder((sessionId) => sessions.get(sessionId)?.cancel());

  // Set by `initialize`: the client renders forms, so "deny with message" can ask for the message.
  let canElicit = false;
  const app = agent({ name: 'cadre' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      canElicit = Boolean(params.clientCapabilities?.elicitation?.form);
      setImmediate(() => {
        loading ??= importSessionModules();
        // The sandbox probe (a bwrap start, tens of ms) runs while those modules load, before `session/new`
        // names the project; a session whose config turns the sandbox off never uses its result.
        void probeSandboxAhead('auto');
      });
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
        },
        agentInfo: { name: 'cadre', title: 'cadre', version: options.version },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      let controller: SessionController;
      try {
        controller = await open(params.cwd, params.mcpServers);
      } catch (error) {
        throw asRequestError(error, { cwd: params.cwd });
      }
      const session = await attach(controller);
      return {
        sessionId: session.id,
        modes: sessionModes(controller),
        configOptions: configOptions(controller),
      };
    })
    .onRequest(methods.agent.session.load, async ({ params }) => {
      // A session ended by `/quit` may be loaded again; a live one may not be opened twice.
      if (sessions.get(params.sessionId)?.closed === false)
        throw RequestError.invalidRequest({ sessionId: params.sessionId }, 'that session is already open');
      const { store } = await load();
      if (!store.getSession(params.sessionId)) {
        throw new RequestError(
          RESOURCE_NOT_FOUND,
          `unknown session "${params.sessionId}": no stored cadre session has that id`,
          { sessionId: params.sessionId },
        );
      }
      let controller: SessionController;
      try {
        controller = await open(params.cwd, params.mcpServers, params.sessionId);
      } catch (error) {
        throw asRequestError(error, { sessionId: params.sessionId });
      }
      for (const update of replayUpdates(controller.messages()))
        await connection.client.notify(methods.client.session.update, {
          sessionId: params.sessionId,
          update,
        });
      await attach(controller);
      return { modes: sessionModes(controller), configOptions: configOptions(controller) };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, requestId }) => {
      stopWarmup(params.sessionId);
      await arrival.ready(requestId);
      const cancelled = arrival.cancelledBeforeStart(requestId);
      const session = find(params.sessionId);
      if (cancelled) return { stopReason: 'cancelled' as const };
      const running = session.prompt(params.prompt);
      // The turn has started (or the prompt was refused): requests written after it may go.
      arrival.settled(requestId);
      return running;
    })
    .onRequest(methods.agent.session.setMode, async ({ params, requestId }) => {
      await arrival.ready(requestId);
      find(params.sessionId).setProfile(params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params, requestId }) => {
      await arrival.ready(requestId);
      const session = find(params.sessionId);
      if (params.configId !== PROFILE_OPTION || typeof params.value !== 'string')
        throw RequestError.invalidParams(
          { configId: params.configId },
          `unknown config option "${params.configId}"`,
        );
      session.setProfile(params.value);
      return { configOptions: configOptions(session.controller) };
    })
    // Done by `arrival` as the message is read, so it keeps its place among the prompts.
    .onNotification(methods.agent.session.cancel, () => {});

  const stream = ndJsonStream(
    Writable.toWeb(options.output as Writable),
    Readable.toWeb(options.input as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect({
    readable: arrival.tap(stream.readable),
    writable: arrival.tapAnswers(stream.writable),
  });
  await connection.closed;
  for (const sessionId of [...warmups.keys()]) stopWarmup(sessionId);
  // The client went away: running turns are cancelled, background work follows its retention rules,
  // and every record is complete before the store closes.
  await Promise.all([...sessions.values()].map((s) => s.close()));
  opened?.store.close();
}
