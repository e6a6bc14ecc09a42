import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gate, openTestSession, type Responder } from './harness.js';

/** A main agent that reads `note.txt`, then writes `out.txt` with what it read, then answers. */
function readThenWrite(bothStarted: Promise<void>): Responder {
  return async (call) => {
    if (!call.system.startsWith('You are')) return { text: 'unused' };
    const results = call.messages.filter((m) => m.role === 'tool').length;
    if (results === 0) {
      await bothStarted;
      return { tools: [['read', { path: 'note.txt' }]] };
    }
    if (results === 1) return { tools: [['write', { path: 'out.txt', content: call.last }]] };
    return { text: `done: ${call.last}` };
  };
}

describe('several controllers in one process (no process-global state)', () => {
  it('two controllers on two projects run turns at once, each with its own root, profiles, rules and asks', async () => {
    // Neither model answers before both turns are running: the two sessions really overlap.
    const bothStarted = gate<void>();
    const a = await openTestSession(readThenWrite(bothStarted.promise), {
      files: {
        'note.txt': 'alpha note',
        '.cadre/agents/alpha.md': '---\ndescription: only in A\n---\nYou are alpha.\n',
      },
    });
    const b = await openTestSession(readThenWrite(bothStarted.promise), {
      files: { 'note.txt': 'beta note' },
      // A asks before writing (the default); B allows writes by a rule.
      config: { permission: { allow: ['write'] } },
    });
    expect(a.controller.setProfile('alpha').ok).toBe(true);
    const unknown = b.controller.setProfile('alpha');
    expect(unknown.ok).toBe(false);
    expect(b.controller.snapshot().profile).toBeNull();

    const turnA = a.controller.submit('go');
    const turnB = b.controller.submit('go');
    await Promise.all([a.next('turn_start'), b.next('turn_start')]);
    bothStarted.open();

    // A's write asks in A only; B never sees an ask.
    const ask = await a.next('ask_opened');
    expect(ask.ask).toMatchObject({ kind: 'permission', label: 'main' });
    expect(b.controller.pendingAsks()).toEqual([]);
    expect((await turnB.outcome).stopReason).toBe('completed');
    expect(readFileSync(b.project.path('out.txt'), 'utf8')).toContain('beta note');
    expect(existsSync(a.project.path('out.txt'))).toBe(false);

    expect(a.controller.answer(ask.ask.id, { kind: 'allow_once' })).toEqual({ ok: true });
    await turnA.outcome;
    expect(readFileSync(a.project.path('out.txt'), 'utf8')).toContain('alpha note');
    expect(readFileSync(b.project.path('out.txt'), 'utf8')).not.toContain('alpha');

    expect(a.mainCalls().every((c) => c.system.startsWith('You are alpha.'))).toBe(true);
    expect(b.mainCalls().every((c) => !c.system.includes('You are alpha.'))).toBe(true);
    expect(a.controller.sessionId).not.toBe(b.controller.sessionId);
  });
});
