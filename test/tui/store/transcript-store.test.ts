import { describe, expect, it } from 'vitest';
import type { ControllerEvent, ControllerState, TurnOutcome } from '../../../src/controller/types.js';
import { TranscriptStore } from '../../../src/tui/store/transcript-store.js';

const STATE = {
  subagents: [{ id: 'child1', label: 'main › writer' }],
  asks: [],
} as unknown as ControllerState;

function fold(events: ControllerEvent[]): TranscriptStore {
  const store = new TranscriptStore(STATE);
  for (const [i, event] of events.entries()) store.apply({ seq: i + 1, time: 0, event });
  return store;
}

const outcome = (stopReason: TurnOutcome['stopReason'], extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
  turnId: 't',
  origin: 'user',
  input: 'x',
  stopReason,
  text: '',
  isError: stopReason !== 'completed',
  turns: 1,
  ...extra,
});

describe('TranscriptStore', () => {
  it('settles finished markdown blocks while the last one streams', () => {
    const store = fold([
      { type: 'turn_started', turnId: 't', origin: 'user', input: 'hi' },
      { type: 'text_delta', agent: 'main', text: 'First paragraph.\n\nSecond' },
    ]);
    const { items, live } = store.snapshot;
    expect(items.map((i) => i.kind)).toEqual(['user', 'markdown']);
    expect(items[1]).toMatchObject({ text: 'First paragraph.\n\n' });
    expect(live.text).toBe('Second');
  });

  it('turns a tool call into a running card, then a finished one with its output', () => {
    const store = fold([
      { type: 'text_delta', agent: 'main', text: 'Let me look.' },
      { type: 'tool_call_start', agent: 'main', callId: 'c1', tool: 'read', input: { path: 'a.ts' } },
    ]);
    expect(store.snapshot.live.running.map((c) => c.title)).toEqual(['read a.ts']);
    expect(store.snapshot.items.map((i) => i.kind)).toEqual(['markdown']);
    store.apply({
      seq: 9,
      time: 0,
      event: {
        type: 'tool_call_end',
        agent: 'main',
        callId: 'c1',
        tool: 'read',
        output: 'x',
        isError: false,
        durationMs: 3,
      },
    });
    expect(store.snapshot.live.running).toEqual([]);
    expect(store.snapshot.items.at(-1)).toMatchObject({
      kind: 'tool',
      card: { number: 1, status: 'ok', output: 'x' },
    });
  });

  it('labels a subagent denial with its chain and leaves subagent text out of the transcript', () => {
    const store = fold([
      { type: 'text_delta', agent: 'child1', text: 'child thinking' },
      {
        type: 'permission_denied',
        agent: 'child1',
        callId: 'c1',
        tool: 'bash',
        input: { command: 'rm -rf /' },
        decision: { action: 'deny', layer: 'x', safety: 'destructive', reason: 'denied by rule', trace: [] },
      },
    ]);
    expect(store.snapshot.live.text).toBe('');
    expect(store.snapshot.items).toEqual([
      { kind: 'line', id: 1, tone: 'error', text: '[main › writer] denied bash rm -rf /: denied by rule' },
    ]);
  });

  it.each([
    ['cancelled', 'Interrupted'],
    ['model_error', 'the model failed'],
    ['max_turns', 'stopped: the turn cap was reached'],
  ] as const)('says how a %s turn ended', (stopReason, text) => {
    const store = fold([{ type: 'turn_ended', outcome: outcome(stopReason, { error: 'the model failed' }) }]);
    expect(store.snapshot.items.at(-1)).toMatchObject({ kind: 'line', text });
  });

  it('asks open and close the modal between snapshots', () => {
    const ask = { id: 'a1', kind: 'question', question: 'why?' } as never;
    const store = fold([{ type: 'ask_opened', ask }]);
    expect(store.snapshot.state.asks).toHaveLength(1);
    store.apply({
      seq: 5,
      time: 0,
      event: { type: 'ask_closed', askId: 'a1', answer: { kind: 'deny' }, by: 'user' },
    });
    expect(store.snapshot.state.asks).toHaveLength(0);
  });

  it('prints a tool card again in full on expand, and knows the last one', () => {
    const store = fold([
      { type: 'tool_call_start', agent: 'main', callId: 'c1', tool: 'bash', input: { command: 'ls' } },
      {
        type: 'tool_call_end',
        agent: 'main',
        callId: 'c1',
        tool: 'bash',
        output: 'a\nb',
        isError: false,
        durationMs: 1,
      },
    ]);
    expect(store.lastCardNumber()).toBe(1);
    expect(store.expand(1)).toBe(true);
    expect(store.snapshot.items.at(-1)).toMatchObject({ kind: 'tool', expanded: true });
    expect(store.expand(7)).toBe(false);
  });

  it('/quit asks the view to end', () => {
    expect(fold([{ type: 'turn_ended', outcome: outcome('completed', { quit: true }) }]).quit).toBe(true);
  });

  it("adds the view's own command and keys to /help", () => {
    const store = fold([{ type: 'command_output', command: 'help', text: '/agents  list', isError: false }]);
    expect(store.snapshot.items.at(-1)).toMatchObject({
      kind: 'block',
      text: expect.stringContaining('/expand [N]'),
    });
  });
});
