import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../src/agent/events.js';
import { composeGate } from '../../src/agent/gate-options.js';
import { type LoopOptions, runAgentLoop } from '../../src/agent/loop.js';
import type {
  ModelCaller,
  ModelRequest,
  ModelStreamPart,
  StreamedToolCall,
} from '../../src/agent/model-stream.js';
import type { Asker } from '../../src/agent/tool-runner.js';
import type { PermissionAction, PermissionDecision, PermissionGate } from '../../src/permission/types.js';
import { ZERO_USAGE } from '../../src/provider/pricing.js';
import type { AnyTool, SafetyClass, ToolContext } from '../../src/tool/tool.js';

type Turn = { text?: string; calls?: StreamedToolCall[]; error?: unknown };

/** A model that answers turn k with turns[k] and records what it was sent. */
function scriptedCaller(turns: Turn[]): { caller: ModelCaller; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let next = 0;
  const caller: ModelCaller = async function* (request) {
    requests.push({ ...request, messages: [...request.messages] });
    const turn = turns[next++] ?? { text: 'out of script' };
    if (turn.text) yield { type: 'text', text: turn.text } as ModelStreamPart;
    if (turn.error) {
      yield { type: 'error', error: turn.error };
      return;
    }
    for (const call of turn.calls ?? []) yield { type: 'tool_call', call };
    yield {
      type: 'finish',
      usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 5 },
      finishReason: turn.calls?.length ? 'tool-calls' : 'stop',
      assistant: [],
    };
  };
  return { caller, requests };
}

function gateWith(actions: Record<string, PermissionAction>): PermissionGate {
  return {
    visibleTools: (tools) => tools.map((t) => t.name),
    approve: () => {},
    decide: async (call) => {
      const action = actions[call.tool] ?? 'allow';
      const decision: PermissionDecision = {
        action,
        layer: 'config',
        rule: `${call.tool}`,
        source: 'test.json:1',
        safety: call.safety,
        reason: `${action} by config rule "${call.tool}" (test.json:1)`,
        trace: [],
      };
      return decision;
    },
  };
}

/** A tool that records start/end order, waiting on a shared barrier so parallelism is observable. */
function recordingTool(
  name: string,
  safety: SafetyClass,
  log: string[],
  running: { now: number; max: number },
): AnyTool {
  return {
    name,
    description: name,
    safety,
    schema: z.object({ id: z.string() }),
    subject: () => ({ kind: 'none' }),
    execute: async (input: { id: string }) => {
      running.now++;
      running.max = Math.max(running.max, running.now);
      log.push(`start ${input.id}`);
      await new Promise((r) => setImmediate(r));
      log.push(`end ${input.id}`);
      running.now--;
      return { output: `${name}:${input.id}` };
    },
  };
}

const context = { signal: new AbortController().signal } as ToolContext;

function options(
  caller: ModelCaller,
  tools: AnyTool[],
  extra: Partial<LoopOptions> = {},
  ask?: Asker,
): LoopOptions {
  const events: AgentEvent[] = [];
  return {
    agent: 'main',
    callModel: caller,
    system: 'sys',
    messages: [{ role: 'user', content: 'go' }],
    toolSpecs: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: {} })),
    tools: {
      tools: new Map(tools.map((t) => [t.name, t])),
      gate: extra.tools?.gate ?? gateWith({}),
      ask: ask ?? (async () => ({ kind: 'deny' })),
      context,
    },
    maxTurns: 10,
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
    costOf: () => 0,
    sleep: async () => {},
    ...extra,
  };
}

function toolResults(message: ModelMessage): { id: string; value: string; type: string }[] {
  if (message.role !== 'tool') throw new Error(`expected a tool message, got ${message.role}`);
  return message.content.map((p) => {
    if (p.type !== 'tool-result') throw new Error('expected tool-result');
    const output = p.output as { type: string; value: string };
    return { id: p.toolCallId, value: output.value, type: output.type };
  });
}

describe('runAgentLoop', () => {
  it('runs read calls of one turn in parallel, writes one at a time, and returns results in call order', async () => {
    const log: string[] = [];
    const running = { now: 0, max: 0 };
    const tools = [recordingTool('r', 'read', log, running), recordingTool('w', 'write', log, running)];
    const call = (id: string, name: string): StreamedToolCall => ({ id, name, input: { id } });
    const { caller, requests } = scriptedCaller([
      { calls: [call('1', 'r'), call('2', 'r'), call('3', 'w'), call('4', 'w'), call('5', 'r')] },
      { text: 'done' },
    ]);
    const result = await runAgentLoop(options(caller, tools));
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('done');
    expect(log.slice(0, 4)).toEqual(['start 1', 'start 2', 'end 1', 'end 2']);
    expect(log.slice(4)).toEqual(['start 3', 'end 3', 'start 4', 'end 4', 'start 5', 'end 5']);
    const last = requests[1].messages.at(-1)!;
    expect(toolResults(last).map((r) => r.value)).toEqual(['r:1', 'r:2', 'w:3', 'w:4', 'r:5']);
  });

  it('answers malformed tool-argument JSON with an error to the model and goes on', async () => {
    const log: string[] = [];
    const tool = recordingTool('r', 'read', log, { now: 0, max: 0 });
    const { caller, requests } = scriptedCaller([
      { calls: [{ id: 'a', name: 'r', input: '{"id": ', inputError: 'Unexpected end of JSON input' }] },
      { text: 'recovered' },
    ]);
    const result = await runAgentLoop(options(caller, [tool]));
    expect(result.text).toBe('recovered');
    const [res] = toolResults(requests[1].messages.at(-1)!);
    expect(res.type).toBe('error-text');
    expect(res.value).toContain('not valid JSON (Unexpected end of JSON input)');
    expect(log).toEqual([]);
  });

  it('answers schema-invalid input and unknown tools with errors naming the problem', async () => {
    const tool = recordingTool('r', 'read', [], { now: 0, max: 0 });
    const { caller, requests } = scriptedCaller([
      {
        calls: [
          { id: 'a', name: 'r', input: { id: 5 } },
          { id: 'b', name: 'nope', input: {} },
        ],
      },
      { text: 'ok' },
    ]);
    await runAgentLoop(options(caller, [tool]));
    const [bad, unknown] = toolResults(requests[1].messages.at(-1)!);
    expect(bad.value).toMatch(/Invalid input for tool "r"[\s\S]*id/);
    expect(unknown.value).toBe('Unknown tool "nope". Available tools: r.');
  });

  it("gives the model the real gate's denial with layer, rule and file:line, and records it", async () => {
    const log: string[] = [];
    const tool = recordingTool('write', 'write', log, { now: 0, max: 0 });
    const denials: unknown[] = [];
    const { caller, requests } = scriptedCaller([
      { calls: [{ id: 'a', name: 'write', input: { id: 'x' } }] },
      { text: 'ok' },
    ]);
    const root = mkdtempSync(join(tmpdir(), 'cadre-loop-'));
    try {
      const text = '{\n  "permission": {\n    "deny": ["write"]\n  }\n}\n';
      const config = JSON.parse(text);
      const opts = options(caller, [tool]);
      opts.tools.gate = composeGate({
        loaded: {
          config,
          files: [{ path: '/cfg/config.json', text, config }],
          globalDir: '/cfg',
          projectRoot: root,
          projectTrusted: false,
          untrusted: [],
        },
        safety: 'full',
        yes: false,
        headless: false,
        root,
      });
      opts.tools.onDenied = (d) => denials.push(d);
      await runAgentLoop(opts);
      const [res] = toolResults(requests[1].messages.at(-1)!);
      expect(res.value).toMatch(/^Permission denied: .*write.*\/cfg\/config\.json:3/);
      expect(denials).toEqual([
        expect.objectContaining({
          tool: 'write',
          layer: 'config',
          rule: 'write',
          source: '/cfg/config.json:3',
        }),
      ]);
      expect(log).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('asks, and on "always" records the approval and runs the call', async () => {
    const log: string[] = [];
    const tool = recordingTool('w', 'write', log, { now: 0, max: 0 });
    const approved: string[] = [];
    const { caller } = scriptedCaller([
      { calls: [{ id: 'a', name: 'w', input: { id: 'x' } }] },
      { text: 'ok' },
    ]);
    const opts = options(caller, [tool], {}, async () => ({ kind: 'always', pattern: 'w(*)' }));
    const gate = gateWith({ w: 'ask' });
    gate.approve = (rule) => approved.push(rule);
    opts.tools.gate = gate;
    await runAgentLoop(opts);
    expect(approved).toEqual(['w(*)']);
    expect(log).toEqual(['start x', 'end x']);
  });

  it('retries a retryable failure and succeeds, emitting a retry event', async () => {
    const events: AgentEvent[] = [];
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { caller, requests } = scriptedCaller([{ text: 'par', error: reset }, { text: 'full answer' }]);
    const result = await runAgentLoop(options(caller, [], { emit: (e) => events.push(e) }));
    expect(result.text).toBe('full answer');
    expect(requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      expect.objectContaining({ attempt: 1, cause: 'ECONNRESET' }),
    ]);
  });

  it('fails with the provider message on a permanent error', async () => {
    const error = new APICallError({
      message: 'x',
      url: 'u',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: '{"error":{"message":"model not found"}}',
    });
    const { caller } = scriptedCaller([{ error }]);
    const result = await runAgentLoop(options(caller, []));
    expect(result.stopReason).toBe('model_error');
    expect(result.error).toContain('HTTP 400: model not found');
  });

  it('stops at the turn cap', async () => {
    const tool = recordingTool('r', 'read', [], { now: 0, max: 0 });
    const loopCall = { calls: [{ id: 'a', name: 'r', input: { id: '1' } }] };
    const { caller } = scriptedCaller([loopCall, loopCall, loopCall, loopCall]);
    const result = await runAgentLoop(options(caller, [tool], { maxTurns: 2 }));
    expect(result.stopReason).toBe('max_turns');
    expect(result.turns).toBe(2);
  });

  it('delivers reminders as a user message before the next turn and waits for pending ones', async () => {
    const pending = ['task t1 finished: 42'];
    const delivered: string[] = [];
    let waited = false;
    const { caller, requests } = scriptedCaller([{ text: 'waiting' }, { text: 'the answer is 42' }]);
    const result = await runAgentLoop(
      options(caller, [], {
        reminders: {
          pending: () => (waited ? pending.map((text, i) => ({ id: String(i), text })) : []),
          delivered: (ids) => {
            delivered.push(...ids);
            pending.splice(0, ids.length);
          },
          wait: async () => {
            if (waited) return false;
            waited = true;
            return true;
          },
        },
      }),
    );
    expect(result.text).toBe('the answer is 42');
    const reminder = requests[1].messages.at(-1)!;
    expect(reminder.role).toBe('user');
    expect(reminder.content).toContain('<system-reminder>\ntask t1 finished: 42');
    expect(delivered).toEqual(['0']);
  });

  it('denies a call whose permission check throws, and never runs it', async () => {
    const log: string[] = [];
    const tool = recordingTool('w', 'write', log, { now: 0, max: 0 });
    const { caller, requests } = scriptedCaller([
      { calls: [{ id: 'a', name: 'w', input: { id: 'x' } }] },
      { text: 'ok' },
    ]);
    const opts = options(caller, [tool]);
    opts.tools.gate = {
      ...gateWith({}),
      decide: async () => {
        throw new Error('parser failed to load');
      },
    };
    await runAgentLoop(opts);
    const [res] = toolResults(requests[1].messages.at(-1)!);
    expect(res.value).toContain('the permission check failed (parser failed to load)');
    expect(log).toEqual([]);
  });

  it('acknowledges a reminder only once the turn that carried it is committed', async () => {
    const reminders = (delivered: string[]) => ({
      pending: () => (delivered.includes('t1') ? [] : [{ id: 't1', text: 'background result' }]),
      delivered: (ids: readonly string[]) => delivered.push(...ids),
      wait: async () => false,
    });
    // The model fails on the turn that carried the reminder: it stays pending for the next run.
    const failed: string[] = [];
    const broken = scriptedCaller([{ error: new Error('boom') }]);
    const result = await runAgentLoop(options(broken.caller, [], { reminders: reminders(failed) }));
    expect(result.stopReason).toBe('model_error');
    expect(broken.requests[0].messages.at(-1)).toMatchObject({ role: 'user' });
    expect(JSON.stringify(broken.requests[0].messages)).toContain('background result');
    expect(failed).toEqual([]);
    // The same reminder on a turn that completes is acknowledged exactly once.
    const done: string[] = [];
    const ok = scriptedCaller([{ text: 'seen' }]);
    expect((await runAgentLoop(options(ok.caller, [], { reminders: reminders(done) }))).stopReason).toBe(
      'completed',
    );
    expect(done).toEqual(['t1']);
  });

  it('decides a write again after an earlier write of the same turn ran, and a stricter outcome wins', async () => {
    const log: string[] = [];
    const tool = recordingTool('w', 'write', log, { now: 0, max: 0 });
    const { caller, requests } = scriptedCaller([
      {
        calls: [
          { id: 'a', name: 'w', input: { id: 'first' } },
          { id: 'b', name: 'w', input: { id: 'second' } },
        ],
      },
      { text: 'ok' },
    ]);
    const opts = options(caller, [tool]);
    // The first write changes the world: from then on the engine denies writes.
    const gate = gateWith({});
    const decide = gate.decide;
    gate.decide = async (call) =>
      log.includes('end first') ? { ...(await decide(call)), action: 'deny' } : decide(call);
    opts.tools.gate = gate;
    await runAgentLoop(opts);
    expect(log).toEqual(['start first', 'end first']);
    const [, second] = toolResults(requests[1].messages.at(-1)!);
    expect(second.value).toMatch(/^Permission denied/);
  });
});

describe('an empty final answer', () => {
  it('is asked for once more, and the second answer is used', async () => {
    const { caller, requests } = scriptedCaller([{}, { text: 'real answer' }]);
    const result = await runAgentLoop(options(caller, []));
    expect(result).toMatchObject({ stopReason: 'completed', text: 'real answer' });
    expect(requests).toHaveLength(2);
  });

  it('twice is a model error, not an empty success', async () => {
    const { caller, requests } = scriptedCaller([{}, { text: '   ' }, { text: 'never asked' }]);
    const result = await runAgentLoop(options(caller, []));
    expect(result.stopReason).toBe('model_error');
    expect(result.error).toMatch(/empty answer twice/);
    expect(requests).toHaveLength(2);
  });
});
