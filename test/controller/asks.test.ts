import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PendingAsk } from '../../src/controller/types.js';
import { gate, openTestSession } from './harness.js';

const PROFILES = {
  // Read-only: read-write children take the one writer slot of the parent checkout in turn.
  '.cadre/agents/researcher.md': '---\nsubagent_tools: readonly\n---\nYou are the researcher.\n',
  '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are the writer.\n',
};

describe('asks from anywhere reach the client (SPEC 6.6)', () => {
  it('an ask from a grandchild subagent arrives labeled with the whole chain and its answer is honoured', async () => {
    const researcherMayFinish = gate<void>();
    const s = await openTestSession(
      async (call) => {
        if (call.system.startsWith('You are the researcher.')) {
          await researcherMayFinish.promise;
          return { text: 'research done' };
        }
        if (call.system.startsWith('You are the writer.')) {
          return call.messages.length === 1
            ? { tools: [['write', { path: 'deep.txt', content: 'from the grandchild' }]] }
            : { text: 'wrote deep.txt' };
        }
        return call.messages.length === 1
          ? { tools: [['task', { agent: 'researcher', prompt: 'research', background: true }]] }
          : { text: 'dispatched' };
      },
      { files: PROFILES },
    );
    await s.controller.submit('go').outcome;
    const researcher = await s.next('subagent_start', (e) => e.profile === 'researcher');
    // Nothing a model can call dispatches below a subagent today (the floor strips `task`), so the test
    // dispatches the grandchild on the researcher's behalf, through the same manager and gate.
    const grandchild = s.controller.runtime.subagents.dispatch(
      { prompt: 'write deep.txt', agent: 'writer' },
      new AbortController().signal,
      researcher.taskId,
    );
    const opened = await s.next('ask_opened');
    expect(opened.ask).toMatchObject({
      kind: 'permission',
      chain: ['main', 'researcher', 'writer'],
      label: 'main › researcher › writer',
      background: true,
    });
    expect(s.controller.snapshot().asks.map((a) => a.id)).toEqual([opened.ask.id]);
    expect(s.controller.answer(opened.ask.id, { kind: 'allow_once' })).toEqual({ ok: true });
    expect((await grandchild).output).toContain('wrote deep.txt');
    expect(readFileSync(s.project.path('deep.txt'), 'utf8')).toBe('from the grandchild');
    expect(s.controller.snapshot().asks).toEqual([]);
    researcherMayFinish.open();
  });

  it('an interrupt denies the asks of the turn and its foreground child, never a background child’s', async () => {
    const s = await openTestSession(
      async (call) => {
        if (call.system.startsWith('You are the writer.')) {
          return call.messages.length === 1
            ? { tools: [['write', { path: 'bg.txt', content: 'background' }]] }
            : { text: 'background writer done' };
        }
        if (call.system.startsWith('You are the researcher.')) {
          // Outside the project: it asks.
          return call.messages.length === 1
            ? { tools: [['read', { path: '/etc/hostname' }]] }
            : { text: 'foreground done' };
        }
        if (call.last === 'go')
          return { tools: [['task', { agent: 'writer', prompt: 'w', background: true }]] };
        if (call.last.startsWith('Started background task')) {
          // The background writer asks first; then the main agent asks twice: itself and its foreground child.
          await s.next('ask_opened');
          return {
            tools: [
              ['write', { path: 'main.txt', content: 'main' }],
              ['task', { agent: 'researcher', prompt: 'r' }],
            ],
          };
        }
        return { text: 'main finished' };
      },
      { files: PROFILES },
    );
    const turn = s.controller.submit('go');
    const asks = () => s.controller.snapshot().asks;
    await s.next('ask_opened', (e) => e.ask.agent === 'main');
    // Answer the main agent's own ask so the foreground child starts and asks in turn.
    const mainAsk = asks().find((a) => a.agent === 'main') as PendingAsk;
    s.controller.answer(mainAsk.id, { kind: 'allow_once' });
    const childAsk = await s.next('ask_opened', (e) => e.ask.label === 'main › researcher');
    expect(asks().map((a) => a.label)).toEqual(['main › writer', 'main › researcher']);
    expect(childAsk.ask.background).toBe(false);

    expect(s.controller.interrupt()).toBe(true);
    expect((await turn.outcome).stopReason).toBe('cancelled');
    expect(await s.next('ask_closed', (e) => e.askId === childAsk.ask.id)).toMatchObject({ by: 'cancelled' });
    expect(s.calls.filter((c) => c.system.startsWith('You are the researcher.'))).toHaveLength(1);
    const left = asks();
    expect(left.map((a) => a.label)).toEqual(['main › writer']);
    expect(left[0].background).toBe(true);

    // The background child's ask is still answerable; its result then starts a turn by itself.
    s.controller.answer(left[0].id, { kind: 'allow_once' });
    const resumed = await s.next('turn_started', (e) => e.origin === 'background');
    expect(resumed.input).toBeNull();
    await s.next('turn_ended', (e) => e.outcome.origin === 'background');
    expect(readFileSync(s.project.path('bg.txt'), 'utf8')).toBe('background');
    expect(s.mainCalls().at(-1)?.last).toContain('background writer done');
  });

  it('several pending asks queue in the order they were asked', async () => {
    const s = await openTestSession(
      async (call) => {
        if (call.system.startsWith('You are the researcher.')) {
          return call.messages.length === 1
            ? { tools: [['read', { path: `/etc/${call.last}` }]] }
            : { text: 'done' };
        }
        return call.messages.length === 1
          ? {
              tools: [
                ['task', { agent: 'researcher', prompt: 'hostname', background: true }],
                ['task', { agent: 'researcher', prompt: 'passwd', background: true }],
              ],
            }
          : { text: 'dispatched both' };
      },
      { files: PROFILES, config: { max_subagent_concurrency: 2 } },
    );
    await s.controller.submit('go').outcome;
    await s.until(() => s.controller.snapshot().asks.length === 2);
    const [a, b] = s.controller.snapshot().asks;
    expect(a.openedAt).toBeLessThanOrEqual(b.openedAt);
    const opened = s.events
      .filter((e) => e.event.type === 'ask_opened')
      .map((e) => (e.event as { ask: PendingAsk }).ask.id);
    expect([a.id, b.id]).toEqual(opened);
    expect(s.controller.answer(b.id, { kind: 'answer', text: 'nonsense' }).ok).toBe(false);
    expect(s.controller.answer('nope', { kind: 'deny' }).ok).toBe(false);
    s.controller.answer(a.id, { kind: 'deny_feedback', feedback: 'not that one' });
    s.controller.answer(b.id, { kind: 'always' });
    await s.next('turn_ended', (e) => e.outcome.origin === 'background');
  });
});

describe('asks of background work with approval_provider set (issue 16 B7)', () => {
  it('go to approval_provider when --yes could approve them; the rest, and foreground asks, go to the user', async () => {
    const decided: string[] = [];
    const s = await openTestSession(
      async (call) => {
        if (call.system.startsWith('You decide permission requests')) {
          decided.push(`${call.route.model}: ${call.last}`);
          return { text: 'APPROVE: an ordinary write in the project' };
        }
        if (call.system.startsWith('You are the writer.')) {
          return call.messages.length === 1
            ? {
                tools: [
                  ['write', { path: 'bg.txt', content: 'background' }],
                  // Outside the project: not what --yes approves, so not the approval model's to decide.
                  ['read', { path: '/etc/hostname' }],
                ],
              }
            : { text: 'background writer done' };
        }
        if (call.last === 'go')
          return {
            tools: [
              ['task', { agent: 'writer', prompt: 'w', background: true }],
              ['write', { path: 'main.txt', content: 'main' }],
            ],
          };
        return { text: 'main finished' };
      },
      { files: PROFILES, config: { approval_provider: 'cheap' }, trustProject: true },
    );
    s.controller.submit('go');
    const mainAsk = await s.next('ask_opened');
    expect(mainAsk.ask).toMatchObject({ label: 'main', background: false });
    s.controller.answer(mainAsk.ask.id, { kind: 'allow_once' });
    const childAsk = await s.next('ask_opened', (e) => e.ask.agent !== 'main');
    expect(childAsk.ask).toMatchObject({
      label: 'main › writer',
      background: true,
      permission: { tool: 'read' },
    });
    s.controller.answer(childAsk.ask.id, { kind: 'allow_once' });
    await s.next('turn_ended', (e) => e.outcome.origin === 'background');

    expect(readFileSync(s.project.path('bg.txt'), 'utf8')).toBe('background');
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatch(/^cheap-model: .*"tool": "write".*bg\.txt/s);
    const opened = s.events.flatMap((e) => (e.event.type === 'ask_opened' ? [e.event.ask.label] : []));
    expect(opened.sort()).toEqual(['main', 'main › writer']);
    expect(s.events.map((e) => e.event)).toContainEqual({
      type: 'notice',
      message: 'approval_provider approved write for main › writer (background)',
    });
  });
});
