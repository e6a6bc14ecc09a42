import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { afterEach, onTestFinished } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import type { ModelCaller, ModelRequest, ModelStreamPart } from '../../src/agent/model-stream.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import { openWorkspace } from '../../src/cli/bootstrap.js';
import { ZERO_USAGE } from '../../src/provider/pricing.js';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { type WriterSandbox, writerPolicy } from '../../src/subagent/writer-sandbox.js';
import { makeProject, type TestProject } from './cli.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

export type Part = ModelStreamPart;
export const text = (t: string): Part[] => [{ type: 'text', text: t }];
let callCount = 0;
export const call = (name: string, input: unknown): Part => ({
  type: 'tool_call',
  call: { id: `c${++callCount}`, name, input },
});

export function reply(parts: Part[]): AsyncIterable<Part> {
  return (async function* () {
    yield* parts;
    if (!parts.some((p) => p.type === 'error'))
      yield { type: 'finish', usage: ZERO_USAGE, finishReason: 'stop', assistant: [] };
  })();
}

/** Everything the main agent was sent as user text (reminders included), in order. */
export function userTexts(request: ModelRequest): string[] {
  return request.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
}

export function toolResults(request: ModelRequest): string[] {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.map((part) =>
    part.type === 'tool-result' ? String((part.output as { value: unknown }).value) : '',
  );
}

export const PROFILES = {
  '.cadre/agents/researcher.md': '---\nsubagent_tools: readonly\n---\nYou are the researcher.\n',
  '.cadre/agents/implementer.md': '---\nsubagent_tools: readwrite\n---\nYou are the implementer.\n',
};

export interface Harness {
  runtime: AgentRuntime;
  events: AgentEvent[];
  dir: string;
  project: TestProject;
}

/**
 * A runtime on an injected model: `main(n, request)` answers the main agent's n-th request (1-based),
 * `child(request)` every subagent's.
 */
export function harness(options: {
  config?: Record<string, unknown>;
  git?: boolean;
  main: (n: number, request: ModelRequest) => AsyncIterable<Part>;
  child: (request: ModelRequest) => AsyncIterable<Part>;
  writerSandbox?: WriterSandbox;
}): Harness {
  const p = makeProject({
    git: options.git,
    files: { 'README.md': 'hello\n', ...PROFILES },
    config: {
      provider: 'm',
      providers: { m: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
      subagent_dispatch_strategy: 'full',
      ...options.config,
    },
  });
  onTestFinished(() => p.cleanup());
  const env = {
    ...process.env,
    CADRE_CONFIG_DIR: p.configDir,
    CADRE_WORKTREE_DIR: `${p.configDir}/worktrees`,
  };
  const workspace = openWorkspace(p.dir, env);
  const store = openSessionStore(p.configDir);
  stores.push(store);
  let n = 0;
  const caller: ModelCaller = (request) => {
    if (request.system.startsWith('You are the')) return options.child(request);
    n += 1;
    return options.main(n, request);
  };
  const events: AgentEvent[] = [];
  const runtime = AgentRuntime.start({
    loaded: workspace.loaded,
    profiles: workspace.profiles,
    prompts: workspace.prompts,
    mainRoute: { type: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' },
    flags: { safety: 'full', yes: true },
    env,
    emit: (event) => events.push(event),
    store,
    modelCaller: async () => caller,
    writerSandbox: options.writerSandbox,
  });
  onTestFinished(() => runtime.close());
  return { runtime, events, dir: p.dir, project: p };
}

export function idIn(textValue: string): string {
  return /task ([0-9a-f]{12})/.exec(textValue)?.[1] ?? '';
}

/**
 * Claims to confine but runs commands plainly (`sandbox: none`, with the writer's policy): tests of the
 * worktree logic and the writer's private store view alone, with nothing the OS sandbox would stop
 * first (the sandbox has its own end-to-end tests).
 */
export const passThroughSandbox: WriterSandbox = {
  probe: async () => ({ ok: true }),
  rootedAt: ({ worktree, gitCommonDir, writer }) => {
    const settings = {
      home: tmpdir(),
      configDir: tmpdir(),
      readOnly: false,
      network: true,
      pidNamespace: false,
      hide: [],
      envAllow: [],
      keyEnvNames: [],
    };
    return { backend: 'none', settings, policy: writerPolicy(settings, worktree, gitCommonDir, writer) };
  },
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

/** A coordinated run whose one implementer runs `commands` (one bash call each) in a worktree. */
export function writerRun(commands: string[], description = 'do it', config?: Record<string, unknown>) {
  const seen: ModelRequest[] = [];
  let step = 0;
  const h = harness({
    git: true,
    config,
    writerSandbox: passThroughSandbox,
    child: () => {
      const command = commands[step++];
      return command === undefined ? reply(text('writer done')) : reply([call('bash', { command })]);
    },
    main: (n, request) => {
      seen.push(request);
      if (n === 1) return reply([call('task', { agent: 'implementer', prompt: 'do it', description })]);
      if (n === 2) return reply(text('waiting'));
      return reply(text('done'));
    },
  });
  return { ...h, seen };
}
