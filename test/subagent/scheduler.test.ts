import { describe, expect, it } from 'vitest';
import { SubagentScheduler } from '../../src/subagent/scheduler.js';

describe('SubagentScheduler', () => {
  it('runs up to the limit at once and queues the rest in FIFO order', async () => {
    const scheduler = new SubagentScheduler(2);
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const done = ids.map((id) =>
      scheduler.acquire(id).then((release) => {
        started.push(id);
        releases.set(id, release);
      }),
    );
    await scheduler.waitFor((s) => s.runningCount === 2 && s.queued().length === 3);
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect(scheduler.position('c')).toBe(1);
    expect(scheduler.position('e')).toBe(3);
    expect(scheduler.queued()).toEqual([
      { taskId: 'c', cause: 'slots' },
      { taskId: 'd', cause: 'slots' },
      { taskId: 'e', cause: 'slots' },
    ]);
    releases.get('b')!();
    await done[2];
    expect(started).toEqual(['a', 'b', 'c']);
    expect(scheduler.runningCount).toBe(2);
    for (const id of ['a', 'c']) releases.get(id)!();
    await Promise.all(done.slice(3));
    expect(started).toEqual(ids);
    releases.get('d')!();
    releases.get('e')!();
    expect(scheduler.runningCount).toBe(0);
  });

  it('a double release frees only one slot', async () => {
    const scheduler = new SubagentScheduler(1);
    const release = await scheduler.acquire('a');
    const second = scheduler.acquire('b');
    const third = scheduler.acquire('c');
    release();
    release();
    await second;
    expect(scheduler.runningCount).toBe(1);
    expect(scheduler.position('c')).toBe(1);
    (await second)();
    (await third)();
  });

  it('cancelling a queued dispatch removes it and rejects with the reason', async () => {
    const scheduler = new SubagentScheduler(1);
    const release = await scheduler.acquire('a');
    const controller = new AbortController();
    const queued = scheduler.acquire('b', controller.signal);
    const after = scheduler.acquire('c');
    controller.abort(new Error('cancelled by user'));
    await expect(queued).rejects.toThrow('cancelled by user');
    expect(scheduler.position('c')).toBe(1);
    release();
    (await after)();
    expect(scheduler.runningCount).toBe(0);
  });
});
