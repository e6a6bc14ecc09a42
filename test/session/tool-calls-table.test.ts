import { describe, expect, it } from 'vitest';
import { TOOL_OUTPUT_KEEP_CHARS } from '../../src/session/tool-calls-table.js';
import type { NewToolCall } from '../../src/session/types.js';
import { useTempStore } from './temp-store.js';

describe('tool calls table', () => {
  const temp = useTempStore();

  function call(sessionId: string, overrides: Partial<NewToolCall> = {}): NewToolCall {
    return {
      sessionId,
      turn: 1,
      callId: 'call-1',
      tool: 'bash',
      input: { command: 'git status' },
      output: 'clean',
      isError: false,
      decision: { action: 'allow', layer: 'profile', rule: 'bash(git status)' },
      startedAt: 1000,
      endedAt: 1042,
      ...overrides,
    };
  }

  it('round-trips a tool call with its decision', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.recordToolCall(call(session.id));
    expect(store.toolCalls(session.id)).toEqual([{ ...call(session.id), outputTruncated: false }]);
  });

  it('records a call without a decision or a rule, and an input of undefined', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.recordToolCall(
      call(session.id, { callId: 'a', decision: undefined, input: undefined, isError: true }),
    );
    store.recordToolCall(
      call(session.id, { callId: 'b', decision: { action: 'deny', layer: 'safety floor' } }),
    );
    const [first, second] = store.toolCalls(session.id);
    expect(first).toMatchObject({ callId: 'a', decision: null, input: null, isError: true });
    expect(second.decision).toEqual({ action: 'deny', layer: 'safety floor' });
  });

  it('keeps a truncated copy of a long output and says so', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const output = 'y'.repeat(TOOL_OUTPUT_KEEP_CHARS + 10);
    store.recordToolCall(call(session.id, { output }));
    const [stored] = store.toolCalls(session.id);
    expect(stored.output).toBe(output.slice(0, TOOL_OUTPUT_KEEP_CHARS));
    expect(stored.outputTruncated).toBe(true);
  });

  it('returns calls in the order recorded, per session', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const other = store.createSession({ projectRoot: '/r', cwd: '/r' });
    for (const [turn, callId] of [
      [1, 'c1'],
      [1, 'c2'],
      [2, 'c3'],
    ] as const) {
      store.recordToolCall(call(session.id, { turn, callId }));
    }
    store.recordToolCall(call(other.id, { callId: 'elsewhere' }));
    expect(store.toolCalls(session.id).map((c) => [c.turn, c.callId])).toEqual([
      [1, 'c1'],
      [1, 'c2'],
      [2, 'c3'],
    ]);
  });
});
