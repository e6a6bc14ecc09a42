import type { ModelMessage } from 'ai';
import { onTestFinished } from 'vitest';
import type { ModelCaller, ModelStreamPart } from '../../src/agent/model-stream.js';
import type { RuntimeFlags } from '../../src/agent/runtime.js';
import { openWorkspace } from '../../src/config/workspace.js';
import { SessionController } from '../../src/controller/session-controller.js';
import type { ControllerEvent, SequencedEvent } from '../../src/controller/types.js';
import { ZERO_USAGE } from '../../src/provider/pricing.js';
import type { ModelParams, ModelRoute } from '../../src/provider/route.js';
import { openSessionStore } from '../../src/session/store.js';
import { makeProject, type TestProject } from '../support/cli.js';

/** One request the injected model received. */
export interface ModelCall {
  system: string;
  messages: ModelMessage[];
  tools: string[];
  /** Each tool's schema, by name (the `task` enum of profiles lives here). */
  schemas: Record<string, Record<string, unknown>>;
  route: ModelRoute;
  params: ModelParams;
  /** The text of the last message (a user prompt, a reminder, or tool results). */
  last: string;
}

export interface Reply {
  text?: string;
  reasoning?: string;
  tools?: [name: string, input: Record<string, unknown>][];
}

export type Responder = (call: ModelCall) => Reply | Promise<Reply>;

function messageText(message: ModelMessage | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-result') return String((part.output as { value: unknown }).value);
      return '';
    })
    .join('\n');
}

/** A promise a test resolves by hand: a model that answers only when the test says so. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let callIds = 0;

/** The model as a function of each request; a cancelled request ends as the real providers' do. */
function injectedModel(respond: Responder, calls: ModelCall[]) {
  return async (route: ModelRoute, params: ModelParams): Promise<ModelCaller> =>
    (request) =>
      (async function* (): AsyncGenerator<ModelStreamPart> {
        const call: ModelCall = {
          system: request.system,
          messages: request.messages,
          tools: request.tools.map((t) => t.name),
          schemas: Object.fromEntries(request.tools.map((t) => [t.name, t.inputSchema])),
          route,
          params,
          last: messageText(request.messages.at(-1)),
        };
        calls.push(call);
        const aborted = new Promise<never>((_, reject) => {
          if (request.signal.aborted) reject(request.signal.reason);
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
        });
        aborted.catch(() => {});
        let reply: Reply;
        try {
          reply = await Promise.race([Promise.resolve(respond(call)), aborted]);
        } catch (error) {
          yield { type: 'error', error };
          return;
        }
        if (reply.reasoning) yield { type: 'reasoning', text: reply.reasoning };
        if (reply.text) yield { type: 'text', text: reply.text };
        for (const [name, input] of reply.tools ?? []) {
          yield { type: 'tool_call', call: { id: `call-${++callIds}`, name, input } };
        }
        yield {
          type: 'finish',
          usage: { ...ZERO_USAGE, inputTokens: 100, outputTokens: 10 },
          finishReason: reply.tools?.length ? 'tool-calls' : 'stop',
          assistant: [],
        };
      })();
}

export interface TestSession {
  controller: SessionController;
  project: TestProject;
  calls: ModelCall[];
  events: SequencedEvent[];
  /** Resolves with the first event (already seen or future) that matches. */
  next<T extends ControllerEvent['type']>(
    type: T,
    where?: (event: Extract<ControllerEvent, { type: T }>) => boolean,
  ): Promise<Extract<ControllerEvent, { type: T }>>;
  /** Resolves once `check` holds, re-checked after every event (state, not time). */
  until(check: () => boolean): Promise<void>;
  /** The main agent's calls only (not subagents', not the summarizer's). */
  mainCalls(): ModelCall[];
}

export interface TestSessionOptions {
  files?: Record<string, string>;
  config?: Record<string, unknown>;
  flags?: Partial<RuntimeFlags>;
  interactive?: boolean;
  git?: boolean;
  /** The project's own config applies whole (`--trust-project`). */
  trustProject?: boolean;
}

export const MAIN_SYSTEM = 'You are cadre';

/** A controller on a fresh project with the injected model; closed with the test. */
export async function openTestSession(
  respond: Responder,
  options: TestSessionOptions = {},
): Promise<TestSession> {
  const project = makeProject({
    files: options.files,
    git: options.git,
    config: {
      provider: 'main',
      providers: {
        main: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', model: 'main-model' },
        cheap: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', model: 'cheap-model' },
      },
      ...options.config,
    },
  });
  onTestFinished(() => project.cleanup());
  const env = { ...process.env, CADRE_CONFIG_DIR: project.configDir };
  const workspace = openWorkspace(project.dir, env, { trustProject: options.trustProject });
  const store = openSessionStore(project.configDir);
  const calls: ModelCall[] = [];
  const controller = await SessionController.open({
    workspace,
    flags: { safety: 'full', yes: false, ...options.flags },
    store,
    interactive: options.interactive ?? true,
    modelCaller: injectedModel(respond, calls),
  });
  onTestFinished(async () => {
    await controller.close();
    store.close();
  });
  const events: SequencedEvent[] = [];
  const waiters: { test(e: ControllerEvent): boolean; resolve(e: ControllerEvent): void }[] = [];
  controller.subscribe(
    (entry) => {
      events.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.test(entry.event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry.event);
        }
      }
    },
    { after: 0 },
  );
  return {
    controller,
    project,
    calls,
    events,
    next(type, where) {
      type E = Extract<ControllerEvent, { type: typeof type }>;
      const test = (e: ControllerEvent) => e.type === type && (where?.(e as E) ?? true);
      const seen = events.find((e) => test(e.event));
      if (seen) return Promise.resolve(seen.event as E);
      return new Promise<E>((resolve) => {
        waiters.push({ test, resolve: (e) => resolve(e as E) });
      });
    },
    until(check) {
      if (check()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push({ test: () => check(), resolve: () => resolve() });
      });
    },
    mainCalls: () => calls.filter((c) => c.system.startsWith(MAIN_SYSTEM)),
  };
}
