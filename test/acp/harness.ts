import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  type ClientCapabilities,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { onTestFinished } from 'vitest';
import { REPO_ROOT, type TestProject } from '../support/cli.js';

/** What the editor side saw, in arrival order. */
export type Seen =
  | { kind: 'update'; notification: SessionNotification; at: number }
  | { kind: 'permission'; request: RequestPermissionRequest; at: number }
  | { kind: 'elicitation'; request: CreateElicitationRequest; at: number };

export interface AcpClient {
  connection: ClientConnection;
  child: ChildProcess;
  seen: Seen[];
  stderr(): string;
  /** Updates of one session, in order. */
  updates(sessionId: string): SessionNotification['update'][];
  /** Resolves once `check` holds, re-checked after everything the client receives. */
  until(check: () => boolean): Promise<void>;
  /** Answers each permission request; default: allow once. */
  answer: (
    request: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** Answers each form elicitation (only sent when initialize declared the capability); default: decline. */
  elicit: (request: CreateElicitationRequest) => CreateElicitationResponse;
  initialize(capabilities?: ClientCapabilities): Promise<unknown>;
  /** `initialize` then `session/new` in the project: the new session's id. */
  open(): Promise<string>;
  /** `session/prompt` of one text block. */
  prompt(sessionId: string, text: string): Promise<PromptResponse>;
  close(): Promise<void>;
}

const ALLOW_ONCE = (request: RequestPermissionRequest): RequestPermissionResponse => ({
  outcome: {
    outcome: 'selected',
    optionId: request.options.find((o) => o.kind === 'allow_once')?.optionId ?? '',
  },
});

/** Spawns `cadre acp` in `project` and connects the SDK's own client-side connection, as an editor does. */
export function spawnAcp(
  project: TestProject,
  args: string[] = [],
  /** Handle form elicitations (`acp.elicit`); only the tests about them register the handler. */
  options: { forms?: boolean } = {},
): AcpClient {
  const child = spawn(process.execPath, [`${REPO_ROOT}/bin/cadre.js`, 'acp', ...args], {
    cwd: project.dir,
    // Real credentials never reach a test run: a misrouted test must fail, not call a paid API.
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      CADRE_CONFIG_DIR: project.configDir,
      CADRE_RETRY_BASE_MS: '5',
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const seen: Seen[] = [];
  const waiters: { check(): boolean; resolve(): void }[] = [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (waiter.check()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const acp: AcpClient = {
    child,
    seen,
    answer: ALLOW_ONCE,
    elicit: () => ({ action: 'decline' }),
    connection: undefined as unknown as ClientConnection,
    stderr: () => stderr,
    updates: (sessionId) =>
      seen.flatMap((s) =>
        s.kind === 'update' && s.notification.sessionId === sessionId ? [s.notification.update] : [],
      ),
    until(check) {
      if (check()) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ check, resolve }));
    },
    initialize: (capabilities = {}) =>
      acp.connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: capabilities,
        clientInfo: { name: 'cadre-test', version: '0' },
      }),
    async open() {
      await acp.initialize();
      const created = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: project.dir,
        mcpServers: [],
      });
      return created.sessionId;
    },
    prompt: (sessionId, text) =>
      acp.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text }],
      }),
    async close() {
      acp.connection.close();
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null)
        await new Promise((r) => child.once('exit', r));
    },
  };
  const base = client({ name: 'cadre-test' })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      seen.push({ kind: 'permission', request: params, at: Date.now() });
      notify();
      return acp.answer(params);
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      seen.push({ kind: 'update', notification: params, at: Date.now() });
      notify();
    });
  const app = options.forms
    ? base.onRequest(methods.client.elicitation.create, ({ params }) => {
        seen.push({ kind: 'elicitation', request: params, at: Date.now() });
        notify();
        return acp.elicit(params);
      })
    : base;
  acp.connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin as Writable),
      Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
    ),
  );
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  return acp;
}

/** The text of the message chunks of a list of updates. */
export function messageText(updates: SessionNotification['update'][], kind = 'agent_message_chunk'): string {
  return updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => ('content' in u && u.content && 'text' in u.content ? u.content.text : ''))
    .join('');
}
