import { RequestError, type RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpStopReason, answerFor } from '../../src/acp/session.js';
import type { PendingAsk, TurnOutcome } from '../../src/controller/types.js';

function outcome(stopReason: TurnOutcome['stopReason'], extra: Partial<TurnOutcome> = {}): TurnOutcome {
  return {
    turnId: 't',
    origin: 'user',
    input: 'x',
    stopReason,
    text: '',
    isError: false,
    turns: 1,
    ...extra,
  };
}

describe('ACP stop reasons', () => {
  it.each([
    ['completed', 'stop', 'end_turn'],
    ['completed', 'tool-calls', 'end_turn'],
    ['completed', 'length', 'max_tokens'],
    ['completed', 'content-filter', 'refusal'],
    ['cancelled', 'stop', 'cancelled'],
    ['max_turns', 'tool-calls', 'max_turn_requests'],
  ] as const)('a turn ended %s after finish reason %s is %s', (stop, finish, expected) => {
    expect(acpStopReason(outcome(stop), finish, 's')).toBe(expected);
  });

  it('a command refused with a message ends the turn normally (its output says why)', () => {
    expect(acpStopReason(outcome('refused', { command: 'agent', error: 'unknown' }), '', 's')).toBe(
      'end_turn',
    );
  });

  it('a failed turn, or a refused prompt that is not a command, is an error response with the reason', () => {
    for (const failed of [
      outcome('model_error', { error: 'provider said 500' }),
      outcome('failed', { error: 'provider said 500' }),
    ]) {
      const thrown = (() => {
        try {
          return acpStopReason(failed, '', 's');
        } catch (error) {
          return error;
        }
      })();
      expect(thrown).toBeInstanceOf(RequestError);
      expect((thrown as RequestError).message).toContain('provider said 500');
    }
    expect(() => acpStopReason(outcome('refused', { error: 'the session is closed' }), '', 's')).toThrow(
      /closed/,
    );
  });
});

const PERMISSION = {
  id: 'a1',
  agent: 'main',
  chain: ['main'],
  label: 'main',
  background: false,
  openedAt: 0,
  kind: 'permission',
} as PendingAsk;
const QUESTION = {
  ...PERMISSION,
  kind: 'question',
  question: 'which?',
  options: ['red', 'blue'],
} as PendingAsk;

const selected = (optionId: string, meta?: Record<string, unknown>): RequestPermissionResponse => ({
  outcome: { outcome: 'selected', optionId, ...(meta ? { _meta: meta } : {}) },
});

describe('ACP permission answers', () => {
  it.each([
    [PERMISSION, selected('allow_once'), { kind: 'allow_once' }],
    [PERMISSION, selected('always'), { kind: 'always' }],
    [PERMISSION, selected('deny'), { kind: 'deny' }],
    [PERMISSION, { outcome: { outcome: 'cancelled' } }, { kind: 'deny' }],
    [
      PERMISSION,
      selected('deny_feedback', { message: ' use ls instead ' }),
      { kind: 'deny_feedback', feedback: 'use ls instead' },
    ],
    [
      PERMISSION,
      { outcome: { outcome: 'selected', optionId: 'deny_feedback' }, _meta: { message: 'not there' } },
      { kind: 'deny_feedback', feedback: 'not there' },
    ],
    // No message yet: the session asks for it (elicitation) or tells the model the user will say it next.
    [PERMISSION, selected('deny_feedback'), { kind: 'deny_feedback', feedback: '' }],
    [QUESTION, selected('answer:1'), { kind: 'answer', text: 'blue' }],
    [QUESTION, selected('answer:7'), { kind: 'deny' }],
    [QUESTION, selected('answer_text'), { kind: 'answer', text: '' }],
    [PERMISSION, selected('answer_text'), { kind: 'deny' }],
    [PERMISSION, selected('something-else'), { kind: 'deny' }],
  ] as const)('%#: %o answered %o', (ask, response, expected) => {
    expect(answerFor(ask, response as RequestPermissionResponse)).toEqual(expected);
  });
});
