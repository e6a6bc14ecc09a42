import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ControllerEvent, SequencedEvent, TurnOutcome } from '../../../src/controller/types.js';
import { entriesFromMessages } from '../../../src/web/transcript/from-messages.js';
import { applyEvent } from '../../../src/web/transcript/reduce.js';
import { EMPTY_TRANSCRIPT, type Transcript } from '../../../src/web/transcript/types.js';

function run(events: ControllerEvent[], start: Transcript = EMPTY_TRANSCRIPT): Transcript {
  return events.reduce<Transcript>(
    (transcript, event, index) => applyEvent(transcript, { seq: start.seq + index + 1, time: 0, event }),
    start,
  );
}

const outcome = (patch: Partial<TurnOutcome>): TurnOutcome => ({
  turnId: 't1',
  origin: 'user',
  input: 'hi',
  stopReason: 'completed',
  text: '',
  isError: false,
  turns: 1,
  ...patch,
});

describe('transcript from controller events', () => {
  it('a turn: the prompt, streamed text joined into one answer, a tool card completed by its result', () => {
    const transcript = run([
      { type: 'turn_started', turnId: 't1', origin: 'user', input: 'fix it' },
      { type: 'text_delta', agent: 'main', text: 'Look' },
      { type: 'text_delta', agent: 'main', text: 'ing.' },
      { type: 'tool_call_start', agent: 'main', callId: 'c1', tool: 'read', input: { path: 'a.ts' } },
      {
        type: 'tool_call_end',
        agent: 'main',
        callId: 'c1',
        tool: 'read',
        output: 'x',
        isError: false,
        durationMs: 3,
      },
      { type: 'text_delta', agent: 'main', text: 'Done.' },
      { type: 'turn_ended', outcome: outcome({}) },
    ]);
    expect(transcript.seq).toBe(7);
    expect(transcript.entries).toEqual([
      { kind: 'user', id: 't1', text: 'fix it', origin: 'user' },
      { kind: 'assistant', id: 'a2', text: 'Looking.', reasoning: '' },
      {
        kind: 'tool',
        id: 'c1',
        tool: 'read',
        input: { path: 'a.ts' },
        status: 'done',
        output: 'x',
        durationMs: 3,
      },
      { kind: 'assistant', id: 'a6', text: 'Done.', reasoning: '' },
    ]);
  });

  it('leaves subagents’ own text and tools to the panel', () => {
    const transcript = run([
      { type: 'text_delta', agent: 'task-1', text: 'child talk' },
      { type: 'tool_call_start', agent: 'task-1', callId: 'c9', tool: 'bash', input: { command: 'ls' } },
      { type: 'warning', agent: 'task-1', message: 'child warning' },
    ]);
    expect(transcript.entries).toEqual([]);
    expect(transcript.seq).toBe(3);
  });

  it.each<[string, ControllerEvent[], unknown[]]>([
    [
      'an interrupted turn says so',
      [{ type: 'turn_ended', outcome: outcome({ stopReason: 'cancelled', isError: true }) }],
      [{ kind: 'notice', level: 'info', text: 'Interrupted.' }],
    ],
    [
      'a turn cut by the turn cap shows its error',
      [
        {
          type: 'turn_ended',
          outcome: outcome({ stopReason: 'max_turns', isError: true, error: 'turn cap 3 reached' }),
        },
      ],
      [{ kind: 'notice', level: 'error', text: 'turn cap 3 reached' }],
    ],
    [
      'a failed turn is told once, by its error event',
      [
        { type: 'error', agent: 'main', message: 'boom' },
        { type: 'turn_ended', outcome: outcome({ stopReason: 'failed', isError: true, error: 'boom' }) },
      ],
      [{ kind: 'notice', level: 'error', text: 'boom' }],
    ],
    [
      'a refused command is told by its output only',
      [
        { type: 'command_output', command: 'agent', text: 'unknown profile "x"', isError: true },
        { type: 'turn_ended', outcome: outcome({ stopReason: 'refused', isError: true, command: 'agent' }) },
      ],
      [{ kind: 'command', command: 'agent', text: 'unknown profile "x"', isError: true }],
    ],
    [
      'a background turn is announced',
      [{ type: 'turn_started', turnId: 't2', origin: 'background', input: null }],
      [{ kind: 'notice', level: 'info', text: 'Background work finished; the agent continues.' }],
    ],
    [
      'reasoning goes beside the answer',
      [
        { type: 'reasoning_delta', agent: 'main', text: 'hmm' },
        { type: 'text_delta', agent: 'main', text: 'yes' },
      ],
      [{ kind: 'assistant', text: 'yes', reasoning: 'hmm' }],
    ],
  ])('%s', (_name, events, expected) => {
    expect(run(events).entries).toMatchObject(expected);
  });

  it('/clear starts the transcript over', () => {
    const before = run([{ type: 'turn_started', turnId: 't1', origin: 'user', input: 'old' }]);
    const after = run([{ type: 'session_changed', sessionId: 's2' }], before);
    expect(after.entries).toEqual([
      { kind: 'notice', id: 'n2', level: 'info', text: 'New conversation (session s2).' },
    ]);
  });

  it('ignores an event it has already applied (a replay after reconnecting)', () => {
    const once = run([{ type: 'text_delta', agent: 'main', text: 'a' }]);
    const repeat: SequencedEvent = {
      seq: 1,
      time: 0,
      event: { type: 'text_delta', agent: 'main', text: 'a' },
    };
    expect(applyEvent(once, repeat)).toBe(once);
  });
});

describe('transcript from stored messages', () => {
  it('rebuilds prompts, answers, tool calls with results, and reminders as notices', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'first task' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'false' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'text', value: 'alpha' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'bash',
            output: { type: 'error-text', value: 'exit 1' },
          },
        ],
      },
      { role: 'user', content: '<system-reminder>\ntask t1 finished\n</system-reminder>' },
      { role: 'assistant', content: 'All done.' },
    ];
    expect(entriesFromMessages(messages)).toEqual([
      { kind: 'user', id: 'm0', text: 'first task', origin: 'stored' },
      { kind: 'assistant', id: 'm1', text: 'Reading.', reasoning: '' },
      { kind: 'tool', id: 'c1', tool: 'read', input: { path: 'a.txt' }, status: 'done', output: 'alpha' },
      {
        kind: 'tool',
        id: 'c2',
        tool: 'bash',
        input: { command: 'false' },
        status: 'error',
        output: 'exit 1',
      },
      { kind: 'notice', id: 'm3', level: 'info', text: 'Background work reported back.' },
      { kind: 'assistant', id: 'm4', text: 'All done.', reasoning: '' },
    ]);
  });

  it('marks a call without a stored result as not finished', () => {
    const entries = entriesFromMessages([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: {} }] },
    ]);
    expect(entries).toMatchObject([{ kind: 'tool', status: 'error', output: 'no result was recorded' }]);
  });
});
