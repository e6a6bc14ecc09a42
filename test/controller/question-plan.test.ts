import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openTestSession } from './harness.js';

describe('the question tool and plan mode through the ask channel', () => {
  it('a question reaches the client as an ask and the answer goes back to the model', async () => {
    const s = await openTestSession((call) =>
      call.messages.length === 1
        ? { tools: [['question', { question: 'Which database?', options: ['sqlite', 'postgres'] }]] }
        : { text: `chose: ${call.last}` },
    );
    const turn = s.controller.submit('set up storage');
    const { ask } = await s.next('ask_opened');
    expect(ask).toMatchObject({
      kind: 'question',
      question: 'Which database?',
      options: ['sqlite', 'postgres'],
      label: 'main',
    });
    expect(s.controller.answer(ask.id, { kind: 'allow_once' }).ok).toBe(false);
    expect(s.controller.answer(ask.id, { kind: 'answer', text: 'sqlite' })).toEqual({ ok: true });
    expect((await turn.outcome).text).toBe('chose: The user answered: sqlite');
  });

  it('headless, a question is an error to the model saying no user is present', async () => {
    const s = await openTestSession(
      (call) =>
        call.messages.length === 1 ? { tools: [['question', { question: 'Which?' }]] } : { text: call.last },
      { interactive: false },
    );
    const outcome = await s.controller.submit('go').outcome;
    expect(outcome.text).toContain('no user is present');
    expect(s.controller.snapshot().asks).toEqual([]);
  });

  it('plan_enter holds the read-only floor until the plan is approved at plan_exit', async () => {
    const s = await openTestSession((call) => {
      switch (call.messages.length) {
        case 1:
          return { tools: [['plan_enter', {}]] };
        case 3:
          return { tools: [['write', { path: 'early.txt', content: 'x' }]] };
        case 5:
          return { tools: [['plan_exit', { plan: '1. write plan.txt' }]] };
        case 7:
          return { tools: [['write', { path: 'plan.txt', content: 'done' }]] };
        default:
          return { text: 'finished' };
      }
    });
    const turn = s.controller.submit('plan then write');
    const { ask } = await s.next('ask_opened', (e) => e.ask.kind === 'plan');
    expect(ask).toMatchObject({ kind: 'plan', plan: '1. write plan.txt' });
    expect(s.controller.snapshot()).toMatchObject({ planMode: true, safety: 'read-only' });
    const duringPlan = s.calls[1];
    expect(duringPlan.tools).not.toContain('write');
    expect(duringPlan.last).toContain('Plan mode is on');
    expect(s.calls[2].last).toMatch(/denied/i);
    expect(existsSync(s.project.path('early.txt'))).toBe(false);

    s.controller.answer(ask.id, { kind: 'allow_once' });
    const writeAsk = await s.next('ask_opened', (e) => e.ask.kind === 'permission');
    s.controller.answer(writeAsk.ask.id, { kind: 'allow_once' });
    expect((await turn.outcome).text).toBe('finished');
    expect(existsSync(s.project.path('plan.txt'))).toBe(true);
    expect(s.controller.snapshot()).toMatchObject({ planMode: false, safety: 'full' });
  });

  it('a rejected plan keeps plan mode on and tells the model why', async () => {
    const s = await openTestSession((call) => {
      if (call.messages.length === 1) return { tools: [['plan_enter', {}]] };
      if (call.messages.length === 3) return { tools: [['plan_exit', { plan: 'rm everything' }]] };
      return { text: call.last };
    });
    const turn = s.controller.submit('go');
    const { ask } = await s.next('ask_opened');
    s.controller.answer(ask.id, { kind: 'deny_feedback', feedback: 'too risky' });
    expect((await turn.outcome).text).toContain('too risky');
    expect(s.controller.snapshot().planMode).toBe(true);
  });

  it('headless plan_exit is approved under --yes and refused with the reason without it', async () => {
    const respond = (call: { messages: unknown[]; last: string }) => {
      if (call.messages.length === 1)
        return { tools: [['plan_enter', {}]] as [string, Record<string, unknown>][] };
      if (call.messages.length === 3)
        return { tools: [['plan_exit', { plan: 'p' }]] as [string, Record<string, unknown>][] };
      return { text: call.last };
    };
    const yes = await openTestSession(respond, { interactive: false, flags: { yes: true } });
    expect((await yes.controller.submit('go').outcome).text).toContain('approved');
    expect(yes.controller.snapshot().planMode).toBe(false);
    const no = await openTestSession(respond, { interactive: false });
    expect((await no.controller.submit('go').outcome).text).toContain('--yes');
    expect(no.controller.snapshot().planMode).toBe(true);
  });
});
