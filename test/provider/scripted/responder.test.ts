import { describe, expect, it } from 'vitest';
import type { RequestView, ViewMessage } from '../../../src/provider/scripted/request-view.js';
import {
  estimateTokens,
  type Outcome,
  ruleMatches,
  ScriptResponder,
  turnIndex,
  UNMATCHED_PREFIX,
} from '../../../src/provider/scripted/responder.js';
import type { Script } from '../../../src/provider/scripted/script.js';

const user = (text: string): ViewMessage => ({ role: 'user', text });
const assistant = (text: string, calls = 0): ViewMessage =>
  calls === 0
    ? { role: 'assistant', text }
    : {
        role: 'assistant',
        text,
        toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: 'read', arguments: '{}' })),
      };
const tool = (text: string): ViewMessage => ({ role: 'tool', text, toolCallId: 'c0' });

function view(messages: ViewMessage[], extra: Partial<RequestView> = {}): RequestView {
  return { model: 'm', system: 'You are the reviewer.', messages, tools: ['read'], stream: true, ...extra };
}

function textOf(outcome: Outcome): string {
  if (outcome.kind === 'error') throw new Error(`expected an answer, got error ${outcome.error.status}`);
  return outcome.answer.text;
}

describe('turnIndex', () => {
  it.each([
    { name: 'a first request', messages: [user('go')], turn: 0 },
    { name: 'one tool round', messages: [user('go'), assistant('', 1), tool('a')], turn: 1 },
    {
      name: 'two tool rounds',
      messages: [user('go'), assistant('', 1), tool('a'), assistant('', 1), tool('b')],
      turn: 2,
    },
    {
      name: 'parallel calls in one round',
      messages: [user('go'), assistant('', 2), tool('a'), tool('b')],
      turn: 1,
    },
    {
      name: 'a new user message in a continued session',
      messages: [user('go'), assistant('', 1), tool('a'), assistant('done'), user('again')],
      turn: 0,
    },
    {
      name: 'a round after the new user message',
      messages: [
        user('go'),
        assistant('', 1),
        tool('a'),
        assistant('done'),
        user('again'),
        assistant('', 1),
        tool('c'),
      ],
      turn: 1,
    },
    { name: 'no user message at all', messages: [assistant('', 1), tool('a')], turn: 1 },
  ])('counts $name as turn $turn', ({ messages, turn }) => {
    expect(turnIndex(messages)).toBe(turn);
  });
});

describe('ruleMatches', () => {
  const request = view([user('review a.txt'), assistant('', 1), tool('the contents'), user('and b.txt')], {
    model: 'cheap-model',
  });
  it.each([
    { match: undefined, expected: true },
    { match: {}, expected: true },
    { match: { system: 'reviewer' }, expected: true },
    { match: { system: 'writer' }, expected: false },
    { match: { first_user: 'a.txt' }, expected: true },
    { match: { first_user: 'b.txt' }, expected: false },
    { match: { last_user: 'b.txt' }, expected: true },
    { match: { last_user: 'a.txt' }, expected: false },
    { match: { any: 'the contents' }, expected: true },
    { match: { any: 'reviewer' }, expected: true },
    { match: { any: 'nowhere' }, expected: false },
    { match: { model: 'cheap' }, expected: true },
    { match: { system: 'reviewer', first_user: 'b.txt' }, expected: false },
    { match: { system: 'reviewer', first_user: 'a.txt', any: 'contents' }, expected: true },
  ])('match $match → $expected', ({ match, expected }) => {
    expect(ruleMatches(match, request)).toBe(expected);
  });
});

describe('ScriptResponder', () => {
  let ids = 0;
  const newToolCallId = (prefix: string) => `${prefix}_${++ids}`;

  it('answers with the first matching rule, not the most specific one', () => {
    const script: Script = {
      rules: [
        { name: 'catch-all-first', turns: [{ text: 'first' }] },
        { match: { system: 'reviewer' }, turns: [{ text: 'second' }] },
      ],
    };
    const resolution = new ScriptResponder(script).respond(view([user('go')]), 'call');
    expect(resolution).toMatchObject({ rule: 0, ruleName: 'catch-all-first', turn: 0, attempt: 0 });
    expect(textOf(resolution.outcome)).toBe('first');
  });

  it('walks through the turns as tool results come back', () => {
    const script: Script = {
      rules: [{ turns: [{ tool_calls: [{ name: 'read', arguments: { path: 'a' } }] }, { text: 'done' }] }],
    };
    const responder = new ScriptResponder(script, { newToolCallId });
    const first = responder.respond(view([user('go')]), 'call').outcome;
    expect(first.kind === 'answer' && first.answer).toMatchObject({
      finish: 'tool_calls',
      toolCalls: [{ name: 'read', arguments: '{"path":"a"}' }],
    });
    const second = responder.respond(view([user('go'), assistant('', 1), tool('x')]), 'call');
    expect(second.turn).toBe(1);
    expect(textOf(second.outcome)).toBe('done');
  });

  it('says which rule and turn is missing instead of hanging', () => {
    const script: Script = { rules: [{ name: 'short', turns: [{ text: 'only one' }] }] };
    const resolution = new ScriptResponder(script).respond(
      view([user('go'), assistant('', 1), tool('x')]),
      'call',
    );
    expect(resolution.outcome.kind).toBe('unmatched');
    expect(textOf(resolution.outcome)).toBe(
      `${UNMATCHED_PREFIX} (rule #0 "short", turn 1; the rule has 1 turn)`,
    );
  });

  it('says so when no rule matches, quoting the first user message', () => {
    const script: Script = { rules: [{ match: { system: 'writer' }, turns: [{ text: 'x' }] }] };
    const resolution = new ScriptResponder(script).respond(view([user('please\nreview')]), 'call');
    expect(resolution).toMatchObject({ rule: null, turn: 0 });
    expect(textOf(resolution.outcome)).toBe(
      `${UNMATCHED_PREFIX} (no rule matches; first user message: "please review", turn 0)`,
    );
  });

  it('fails the first `times` deliveries of the same request, then answers', () => {
    const script: Script = {
      rules: [
        { turns: [{ error: { status: 429, message: 'slow down', retry_after: 2, times: 2 }, text: 'ok' }] },
      ],
    };
    const responder = new ScriptResponder(script);
    const request = view([user('go')]);
    const kinds = [0, 1, 2, 3].map(() => responder.respond(request, 'call'));
    expect(kinds.map((r) => [r.attempt, r.outcome.kind])).toEqual([
      [0, 'error'],
      [1, 'error'],
      [2, 'answer'],
      [3, 'answer'],
    ]);
    expect(kinds[0].outcome).toEqual({
      kind: 'error',
      error: { status: 429, message: 'slow down', type: undefined, retryAfterSeconds: 2 },
    });
  });

  it('keeps failing when `times` is absent', () => {
    const script: Script = { rules: [{ turns: [{ error: { status: 500, message: 'boom' } }] }] };
    const responder = new ScriptResponder(script);
    const kinds = [0, 1, 2].map(() => responder.respond(view([user('go')]), 'call').outcome.kind);
    expect(kinds).toEqual(['error', 'error', 'error']);
  });

  it('sends scripted errors before scripted resets, then the answer', () => {
    const script: Script = {
      rules: [
        { turns: [{ error: { status: 503, message: 'busy', times: 1 }, reset: { times: 2 }, text: 'ok' }] },
      ],
    };
    const responder = new ScriptResponder(script);
    const kinds = [0, 1, 2, 3].map(() => responder.respond(view([user('go')]), 'call').outcome.kind);
    expect(kinds).toEqual(['error', 'reset', 'reset', 'answer']);
  });

  it('orders failures errors, resets, truncations, malformed replies, then the answer', () => {
    const script: Script = {
      rules: [
        {
          turns: [
            {
              error: { status: 503, message: 'busy', times: 1 },
              reset: { times: 1 },
              truncate: { times: 2 },
              malformed: true,
              text: 'ok',
            },
          ],
        },
      ],
    };
    const responder = new ScriptResponder(script);
    const kinds = [0, 1, 2, 3, 4, 5].map(() => responder.respond(view([user('go')]), 'call').outcome.kind);
    expect(kinds).toEqual(['error', 'reset', 'truncated', 'truncated', 'malformed', 'malformed']);
  });

  it('counts failures per conversation, so parallel subagents each see their own 429', () => {
    const script: Script = {
      rules: [{ turns: [{ error: { status: 429, message: 'x', times: 1 }, text: 'ok' }] }],
    };
    const responder = new ScriptResponder(script);
    const a = view([user('task A')]);
    const b = view([user('task B')]);
    expect(responder.respond(a, 'call').outcome.kind).toBe('error');
    expect(responder.respond(b, 'call').outcome.kind).toBe('error');
    expect(responder.respond(a, 'call').outcome.kind).toBe('answer');
    expect(responder.respond(b, 'call').outcome.kind).toBe('answer');
  });

  it('estimates usage at about four characters per token unless the turn gives it', () => {
    const script: Script = {
      rules: [
        { match: { first_user: 'estimate' }, turns: [{ text: 'x'.repeat(40) }] },
        { turns: [{ text: 'given', usage: { input_tokens: 1000, output_tokens: 7 } }] },
      ],
    };
    const responder = new ScriptResponder(script);
    const estimated = responder.respond(view([user('estimate')], { system: '', tools: [] }), 'call').outcome;
    expect(estimated.kind === 'answer' && estimated.answer.usage).toEqual({
      inputTokens: estimateTokens('\nestimate'),
      outputTokens: 10,
    });
    const given = responder.respond(view([user('other')]), 'call').outcome;
    expect(given.kind === 'answer' && given.answer.usage).toEqual({ inputTokens: 1000, outputTokens: 7 });
  });

  it('passes raw arguments through untouched and gives every call a fresh id', () => {
    const script: Script = {
      rules: [
        { turns: [{ tool_calls: [{ name: 'bash', raw_arguments: '{"command": "ls' }, { name: 'read' }] }] },
      ],
    };
    const responder = new ScriptResponder(script);
    const calls = [0, 1].flatMap(() => {
      const outcome = responder.respond(view([user('go')]), 'toolu').outcome;
      return outcome.kind === 'answer' ? outcome.answer.toolCalls : [];
    });
    expect(calls.map((c) => c.arguments)).toEqual(['{"command": "ls', '{}', '{"command": "ls', '{}']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(4);
    for (const call of calls) expect(call.id).toMatch(/^toolu_[\w-]+$/);
  });

  it('carries the delay of the turn, also for errors', () => {
    const script: Script = {
      rules: [{ turns: [{ delay_ms: 250, error: { status: 500, message: 'late failure' } }] }],
    };
    expect(new ScriptResponder(script).respond(view([user('go')]), 'call')).toMatchObject({
      delayMs: 250,
      outcome: { kind: 'error' },
    });
  });
});
