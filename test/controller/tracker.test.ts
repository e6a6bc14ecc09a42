import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { EventTracker } from '../../src/controller/tracker.js';

const start = (
  taskId: string,
  extra: Partial<Extract<AgentEvent, { type: 'subagent_start' }>> = {},
): AgentEvent => ({
  type: 'subagent_start',
  agent: 'main',
  taskId,
  profile: 'worker',
  description: taskId,
  background: true,
  ...extra,
});
const end = (taskId: string, status: 'completed' | 'failed' | 'cancelled' = 'completed'): AgentEvent => ({
  type: 'subagent_end',
  agent: 'main',
  taskId,
  status,
});

describe('EventTracker groups: batches and fleets are live from their first task', () => {
  it('a coordinator batch is open while its tasks run and ends at its reconciliation', () => {
    const tracker = new EventTracker();
    tracker.apply(start('t1', { batchId: 'b1' }), 10);
    tracker.apply(start('t2', { batchId: 'b1' }), 11);
    expect(tracker.batchList()).toEqual([
      { id: 'b1', kind: 'batch', status: 'open', taskIds: ['t1', 't2'], startedAt: 10 },
    ]);
    tracker.apply(end('t1'), 20);
    tracker.apply(end('t2'), 21);
    expect(tracker.batchList()[0].endedAt).toBeUndefined();
    tracker.apply(
      { type: 'batch_reconciled', agent: 'main', batchId: 'b1', taskIds: ['t1', 't2'], text: 'done' },
      30,
    );
    expect(tracker.batchList()[0]).toMatchObject({ status: 'reconciled', endedAt: 30 });
  });

  it('a fleet item waiting for its dependencies is queued with them as its cause, then runs', () => {
    const tracker = new EventTracker();
    tracker.apply(start('t1', { fleet: { id: 'f1', item: 'lint', dependsOn: [] } }), 0);
    tracker.apply(start('t2', { fleet: { id: 'f1', item: 'fix', dependsOn: ['lint'] } }), 0);
    const [lint, fix] = tracker.list();
    expect(lint).toMatchObject({ state: 'running', fleet: { item: 'lint', dependsOn: [] } });
    expect(fix).toMatchObject({
      state: 'queued',
      queue: { position: 0, cause: 'dependencies: lint' },
      fleet: { id: 'f1', item: 'fix', dependsOn: ['lint'] },
    });
    expect(tracker.batchList()).toEqual([
      { id: 'f1', kind: 'fleet', status: 'open', taskIds: ['t1', 't2'], startedAt: 0 },
    ]);
    tracker.apply(end('t1'), 5);
    tracker.apply({ type: 'turn_start', agent: 't2', turn: 1 }, 6);
    expect(tracker.list()[1]).toMatchObject({ state: 'running', queue: undefined });
    expect(tracker.batchList()[0].endedAt).toBeUndefined();
  });

  it.each([
    [['completed', 'completed'], 'completed'],
    [['completed', 'failed'], 'failed'],
    [['cancelled', 'completed'], 'failed'],
  ] as const)('a fleet whose items ended %j ends %s', (states, status) => {
    const tracker = new EventTracker();
    tracker.apply(start('t1', { fleet: { id: 'f1', item: 'a', dependsOn: [] } }), 0);
    tracker.apply(start('t2', { fleet: { id: 'f1', item: 'b', dependsOn: [] } }), 0);
    tracker.apply(end('t1', states[0]), 1);
    expect(tracker.batchList()[0].endedAt).toBeUndefined();
    tracker.apply(end('t2', states[1]), 2);
    expect(tracker.batchList()[0]).toMatchObject({ status, endedAt: 2 });
  });

  it('a snapshot is a copy: changing it changes nothing inside', () => {
    const tracker = new EventTracker();
    tracker.apply(start('t1', { fleet: { id: 'f1', item: 'a', dependsOn: ['z'] } }), 0);
    tracker.list()[0].fleet?.dependsOn.push('mutated');
    tracker.batchList()[0].taskIds.push('mutated');
    expect(tracker.list()[0].fleet?.dependsOn).toEqual(['z']);
    expect(tracker.batchList()[0].taskIds).toEqual(['t1']);
  });
});
