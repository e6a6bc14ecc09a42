import { describe, expect, it } from 'vitest';
import type { SequencedEvent } from '../../src/controller/types.js';
import { RECONCILIATION_HEADER } from '../../src/subagent/reconciliation.js';
import { gate, MAIN_SYSTEM, openTestSession } from './harness.js';

describe('several clients on one controller', () => {
  it('every client sees the same numbered stream; an ask answered by one closes for the other', async () => {
    const s = await openTestSession((call) =>
      call.messages.length === 1
        ? { tools: [['write', { path: 'x.txt', content: 'x' }]] }
        : { text: 'wrote' },
    );
    const first: SequencedEvent[] = [];
    const second: SequencedEvent[] = [];
    const a = s.controller.subscribe((e) => first.push(e));
    const b = s.controller.subscribe((e) => second.push(e));
    const turn = s.controller.submit('write x');
    const { ask } = await s.next('ask_opened');
    expect(second.some((e) => e.event.type === 'ask_opened')).toBe(true);
    s.controller.answer(ask.id, { kind: 'allow_once' });
    expect(s.controller.answer(ask.id, { kind: 'deny' }).ok).toBe(false);
    await turn.outcome;
    a.close();
    b.close();
    expect(first.map((e) => e.seq)).toEqual(second.map((e) => e.seq));
    expect(second.some((e) => e.event.type === 'ask_closed' && e.event.by === 'user')).toBe(true);
  });

  it('a client that throws is dropped without harming the session or the other clients', async () => {
    const s = await openTestSession(() => ({ text: 'fine' }));
    s.controller.subscribe(() => {
      throw new Error('broken client');
    });
    expect((await s.controller.submit('go').outcome).text).toBe('fine');
    expect(s.events.some((e) => e.event.type === 'turn_ended')).toBe(true);
  });
});

describe('turns nobody typed (SPEC 7.3)', () => {
  it('a coordinated batch reconciled while the session is idle starts a turn, announced as background', async () => {
    const researcherMayAnswer = gate<void>();
    const s = await openTestSession(
      async (call) => {
        if (call.system.startsWith('You are the researcher.')) {
          await researcherMayAnswer.promise;
          return { text: 'found it' };
        }
        if (call.last.includes(RECONCILIATION_HEADER)) return { text: 'reconciled' };
        return call.messages.length === 1
          ? { tools: [['task', { agent: 'researcher', prompt: 'look', background: true }]] }
          : { text: 'waiting for the batch' };
      },
      {
        git: true,
        files: {
          '.cadre/agents/researcher.md': '---\nsubagent_tools: readonly\n---\nYou are the researcher.\n',
          '.cadre/agents/implementer.md': '---\nsubagent_tools: readwrite\n---\nYou are the implementer.\n',
        },
        config: { subagent_dispatch_strategy: 'optional' },
      },
    );
    expect((await s.controller.submit('investigate').outcome).text).toBe('waiting for the batch');
    expect(s.controller.snapshot().status).toBe('idle');
    researcherMayAnswer.open();
    const started = await s.next('turn_started', (e) => e.origin === 'background');
    expect(started.input).toBeNull();
    const ended = await s.next('turn_ended', (e) => e.outcome.origin === 'background');
    expect(ended.outcome).toMatchObject({ stopReason: 'completed', text: 'reconciled' });
    const last = s.calls.filter((c) => c.system.startsWith(MAIN_SYSTEM)).at(-1);
    expect(last?.last).toContain('found it');
    expect(s.controller.snapshot().batches).toMatchObject([{ taskIds: [expect.any(String)] }]);
  });
});
