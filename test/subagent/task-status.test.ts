import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { ModelCaller, ModelRequest, ModelStreamPart } from '../../src/agent/model-stream.js';
import { AgentRuntime } from '../../src/agent/runtime.js';
import { openWorkspace } from '../../src/cli/bootstrap.js';
import { ZERO_USAGE } from '../../src/provider/pricing.js';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { makeProject } from '../support/cli.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** The last tool result the model was sent, as text. */
function lastToolResult(request: ModelRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool') return '';
  const part = last.content[0];
  return part.type === 'tool-result' ? String((part.output as { value: unknown }).value) : '';
}

function reply(parts: ModelStreamPart[]): AsyncIterable<ModelStreamPart> {
  return (async function* () {
    yield* parts;
    yield { type: 'finish', usage: ZERO_USAGE, finishReason: 'stop', assistant: [] };
  })();
}

describe('task_status through the runtime', () => {
  it('reports a running task, waits for its result, and the result is not delivered again', async () => {
    const p = makeProject({
      files: { '.cadre/agents/slowish.md': '---\nsubagent_tools: readonly\n---\nYou are slowish.\n' },
      config: {
        provider: 'm',
        providers: { m: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
      },
    });
    onTestFinished(() => p.cleanup());
    const env = { ...process.env, CADRE_CONFIG_DIR: p.configDir };
    const workspace = openWorkspace(p.dir, env);
    const store = openSessionStore(p.configDir);
    stores.push(store);
    let release!: () => void;
    const childMayAnswer = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mainRequests: ModelRequest[] = [];
    let taskId = '';
    // The model is injected: the main agent reads the task id from the task tool's answer.
    const caller: ModelCaller = (request) => {
      if (request.system.startsWith('You are slowish.')) {
        return (async function* () {
          await childMayAnswer;
          yield* reply([{ type: 'text', text: 'slowish result' }]);
        })();
      }
      mainRequests.push(request);
      const call = (name: string, input: unknown) =>
        reply([{ type: 'tool_call', call: { id: `c${mainRequests.length}`, name, input } }]);
      switch (mainRequests.length) {
        case 1:
          return call('task', { agent: 'slowish', prompt: 'go', background: true });
        case 2:
          taskId = /task ([0-9a-f]{12})/.exec(lastToolResult(request))?.[1] ?? '';
          return call('task_status', { task_id: taskId.slice(0, 6) });
        case 3:
          release();
          return call('task_status', { task_id: taskId, wait: true });
        default:
          return reply([{ type: 'text', text: 'done' }]);
      }
    };
    const runtime = AgentRuntime.start({
      loaded: workspace.loaded,
      profiles: workspace.profiles,
      prompts: workspace.prompts,
      mainRoute: { type: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' },
      flags: { safety: 'full', yes: true },
      env,
      emit: () => {},
      store,
      modelCaller: async () => caller,
    });
    onTestFinished(() => runtime.close());
    const result = await runtime.prompt('go');
    expect(result.text).toBe('done');
    expect(lastToolResult(mainRequests[2])).toMatch(new RegExp(`^Task ${taskId} \\(slowish\\) is running`));
    expect(lastToolResult(mainRequests[3])).toBe(`Task ${taskId} (slowish) completed:\nslowish result`);
    expect(mainRequests).toHaveLength(4);
    const reminders = mainRequests
      .flatMap((r) => r.messages)
      .filter((m) => m.role === 'user' && String(m.content).includes('system-reminder'));
    expect(reminders).toEqual([]);
  });
});
