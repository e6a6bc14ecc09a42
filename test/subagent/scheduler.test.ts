import { describe, expect, it } from 'vitest';
import {
  type Claim,
  type Lease,
  NestedAcquisitionError,
  type SchedulerLimits,
  type SlotRequest,
  SubagentScheduler,
  type WaitCause,
} from '../../src/subagent/scheduler.js';

const CHECKOUT = '/repo';
const claim = (paths: Claim['paths'], checkout = CHECKOUT): Claim => ({ checkout, paths });
const writer = (taskId: string, paths?: Claim['paths'], extra: Partial<SlotRequest> = {}): SlotRequest => ({
  taskId,
  writer: true,
  claim: paths === undefined ? undefined : claim(paths),
  ...extra,
});
const reader = (taskId: string, extra: Partial<SlotRequest> = {}): SlotRequest => ({ taskId, ...extra });

/** Requests made in order; reports who runs and why each other one waits. No time involved. */
function schedule(limits: SchedulerLimits, requests: SlotRequest[]) {
  const scheduler = new SubagentScheduler(limits);
  const leases = new Map<string, Lease>();
  for (const request of requests) {
    void scheduler.acquire(request).then((lease) => leases.set(request.taskId, lease));
  }
  return { scheduler, leases };
}

const WIDE: SchedulerLimits = { total: 8, writers: 8, batch: 8 };

describe('SubagentScheduler: who starts and why the others wait', () => {
  const cases: {
    name: string;
    limits?: SchedulerLimits;
    requests: SlotRequest[];
    running: string[];
    causes: Record<string, WaitCause>;
  }[] = [
    {
      name: 'past the total cap requests queue for slots, FIFO',
      limits: { total: 2, writers: 2, batch: 2 },
      requests: [reader('a'), reader('b'), reader('c'), reader('d')],
      running: ['a', 'b'],
      causes: { c: 'slots', d: 'slots' },
    },
    {
      name: 'writers past the writer cap wait for writers while readers still start',
      limits: { total: 6, writers: 1, batch: 6 },
      requests: [writer('w1'), writer('w2'), reader('r')],
      running: ['w1', 'r'],
      causes: { w2: 'writers' },
    },
    {
      name: 'at most the batch cap of one batch runs; another batch and free tasks are not held back',
      limits: { total: 8, writers: 8, batch: 2 },
      requests: [
        reader('a', { batch: 'B1' }),
        reader('b', { batch: 'B1' }),
        reader('c', { batch: 'B1' }),
        reader('d', { batch: 'B2' }),
        reader('e'),
      ],
      running: ['a', 'b', 'd', 'e'],
      causes: { c: 'batch' },
    },
    {
      name: 'disjoint file claims start together; the same file waits for its holder',
      requests: [writer('a', ['src/a.ts']), writer('b', ['src/b.ts']), writer('c', ['src/a.ts'])],
      running: ['a', 'b'],
      causes: { c: 'claim: src/a.ts held by a' },
    },
    {
      name: 'two directory claims on the same directory start together',
      requests: [writer('a', ['src/']), writer('b', ['src/'])],
      running: ['a', 'b'],
      causes: {},
    },
    {
      name: 'a file claim inside a held directory claim queues',
      requests: [writer('a', ['src/']), writer('b', ['src/x.ts'])],
      running: ['a'],
      causes: { b: 'claim: src/ held by a' },
    },
    {
      name: 'a whole-workspace writer waits for any claim, and is not overtaken by later writers',
      requests: [writer('a', ['x.ts']), writer('w', 'workspace'), writer('c', ['y.ts'])],
      running: ['a'],
      causes: { w: 'claim: x.ts held by a', c: 'claim: . held by w' },
    },
    {
      name: 'readers are never blocked by claims',
      requests: [writer('w', 'workspace'), reader('r')],
      running: ['w', 'r'],
      causes: {},
    },
    {
      name: 'claims in different checkouts never collide (isolated worktrees)',
      requests: [
        { taskId: 'a', writer: true, claim: claim('workspace', '/wt/a') },
        { taskId: 'b', writer: true, claim: claim('workspace', '/wt/b') },
      ],
      running: ['a', 'b'],
      causes: {},
    },
    {
      name: 'writers without a claim (isolated, no write_paths) only count against the writer cap',
      limits: { total: 6, writers: 2, batch: 6 },
      requests: [writer('a'), writer('b'), writer('c')],
      running: ['a', 'b'],
      causes: { c: 'writers' },
    },
    {
      name: 'a claim conflict is reported before the caps',
      limits: { total: 1, writers: 1, batch: 1 },
      requests: [writer('a', ['f']), writer('b', ['f'])],
      running: ['a'],
      causes: { b: 'claim: f held by a' },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const { scheduler } = schedule(c.limits ?? WIDE, c.requests);
      await scheduler.waitFor((s) => s.runningCount === c.running.length);
      expect(scheduler.running().sort()).toEqual([...c.running].sort());
      expect(Object.fromEntries(scheduler.queued().map((q) => [q.taskId, q.cause]))).toEqual(c.causes);
    });
  }
});

describe('SubagentScheduler: releases, realize, shrink and widen', () => {
  it('a released slot goes to the first waiter, and causes are refreshed', async () => {
    const { scheduler, leases } = schedule({ total: 1, writers: 1, batch: 1 }, [
      reader('a'),
      reader('b'),
      reader('c'),
    ]);
    await scheduler.waitFor((s) => s.queued().length === 2);
    await Promise.resolve();
    leases.get('a')?.release();
    await scheduler.waitFor((s) => s.running().includes('b'));
    expect(scheduler.queued()).toEqual([{ taskId: 'c', position: 1, cause: 'slots' }]);
  });

  it('a double release frees only one slot', async () => {
    const { scheduler, leases } = schedule({ total: 1, writers: 1, batch: 1 }, [
      reader('a'),
      reader('b'),
      reader('c'),
    ]);
    await scheduler.waitFor((s) => s.queued().length === 2);
    await Promise.resolve();
    leases.get('a')?.release();
    leases.get('a')?.release();
    await scheduler.waitFor((s) => s.running().includes('b'));
    expect(scheduler.runningCount).toBe(1);
    expect(scheduler.position('c')).toBe(1);
  });

  it('cancelling a queued dispatch removes it and rejects with the reason', async () => {
    const scheduler = new SubagentScheduler(1);
    await scheduler.acquire(reader('a'));
    const controller = new AbortController();
    const queued = scheduler.acquire(reader('b'), controller.signal);
    void scheduler.acquire(reader('c'));
    controller.abort(new Error('cancelled by user'));
    await expect(queued).rejects.toThrow('cancelled by user');
    expect(scheduler.position('c')).toBe(1);
  });

  it('two directory claims conflict only when both realize the same file', async () => {
    const { scheduler, leases } = schedule(WIDE, [writer('a', ['src/']), writer('b', ['src/'])]);
    await scheduler.waitFor((s) => s.runningCount === 2);
    await Promise.resolve();
    expect(leases.get('a')?.realize('src/one.ts')).toEqual({ ok: true });
    expect(leases.get('b')?.realize('src/two.ts')).toEqual({ ok: true });
    expect(leases.get('b')?.realize('src/one.ts')).toEqual({
      ok: false,
      cause: 'claim: src/one.ts held by a',
    });
  });

  it('after path-bound writes a shrinkable whole-workspace claim shrinks to the touched files', async () => {
    const shrinkable: SlotRequest = {
      taskId: 'w',
      writer: true,
      claim: { ...claim('workspace'), shrinkable: true },
    };
    const { scheduler, leases } = schedule(WIDE, [shrinkable, writer('x', ['other.ts'])]);
    await scheduler.waitFor((s) => s.queued().length === 1);
    await Promise.resolve();
    leases.get('w')?.realize('mine.ts');
    leases.get('w')?.shrink();
    await scheduler.waitFor((s) => s.running().includes('x'));
    expect(scheduler.reserveMomentarily(claim(['mine.ts']))).toBe('claim: mine.ts held by w');
  });

  it('a serialized task writer keeps its whole checkout: its claim does not shrink', async () => {
    const { scheduler, leases } = schedule(WIDE, [writer('w', 'workspace'), writer('x', ['other.ts'])]);
    await scheduler.waitFor((s) => s.queued().length === 1);
    await Promise.resolve();
    leases.get('w')?.realize('mine.ts');
    leases.get('w')?.shrink();
    expect(scheduler.queued()).toEqual([{ taskId: 'x', position: 1, cause: 'claim: . held by w' }]);
  });

  it('a writer that ran bash is widened back to the whole workspace and can no longer shrink', async () => {
    const shrinkable: SlotRequest = {
      taskId: 'w',
      writer: true,
      claim: { ...claim('workspace'), shrinkable: true },
    };
    const { scheduler, leases } = schedule(WIDE, [shrinkable]);
    await scheduler.waitFor((s) => s.runningCount === 1);
    await Promise.resolve();
    const lease = leases.get('w') as Lease;
    lease.realize('a.ts');
    lease.widen();
    lease.shrink();
    expect(scheduler.reserveMomentarily(claim(['elsewhere.ts']))).toBe('claim: . held by w');
  });

  it("the parent's own write takes a momentary reservation that fails at once on conflict", async () => {
    const { scheduler } = schedule(WIDE, [writer('w', ['a.ts'])]);
    await scheduler.waitFor((s) => s.runningCount === 1);
    expect(scheduler.reserveMomentarily(claim(['a.ts']))).toBe('claim: a.ts held by w');
    expect(scheduler.reserveMomentarily(claim(['b.ts']))).toBeUndefined();
    expect(scheduler.runningCount).toBe(1);
  });

  it('a nested acquisition that would wait fails fast instead of queueing', async () => {
    const scheduler = new SubagentScheduler({ total: 1, writers: 1, batch: 1 });
    await scheduler.acquire(reader('parent'));
    await expect(scheduler.acquire(reader('child', { parent: 'parent' }))).rejects.toBeInstanceOf(
      NestedAcquisitionError,
    );
    expect(scheduler.queued()).toEqual([]);
  });
});
