import { describe, expect, it } from 'vitest';
import {
  type Claim,
  ClaimDeadlockError,
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

  it('after path-bound writes a shrinkable whole-workspace claim shrinks to the touched files', async () => {
    const shrinkable: SlotRequest = {
      taskId: 'w',
      writer: true,
      claim: { ...claim('workspace'), shrinkable: true },
    };
    const { scheduler, leases } = schedule(WIDE, [shrinkable, writer('x', ['other.ts'])]);
    await scheduler.waitFor((s) => s.queued().length === 1);
    await Promise.resolve();
    await leases.get('w')?.realize('mine.ts');
    leases.get('w')?.shrink();
    await scheduler.waitFor((s) => s.running().includes('x'));
    expect(scheduler.reserveMomentarily(claim(['mine.ts']))).toBe('claim: mine.ts held by w');
  });

  it('a serialized task writer keeps its whole checkout: its claim does not shrink', async () => {
    const { scheduler, leases } = schedule(WIDE, [writer('w', 'workspace'), writer('x', ['other.ts'])]);
    await scheduler.waitFor((s) => s.queued().length === 1);
    await Promise.resolve();
    await leases.get('w')?.realize('mine.ts');
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
    await lease.realize('a.ts');
    await lease.widen();
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

/** One step of a run-time scenario: a request, or a running writer's realize/widen/shrink/release. */
type Step =
  | { acquire: SlotRequest }
  | { realize: [task: string, path: string] }
  | { widen: string }
  | { shrink: string }
  | { release: string };

/** Lets every promise the scheduler settled synchronously run its callbacks (no time passes). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs the steps in order; each realize/widen is recorded as `done`, `waiting` or its error message. */
async function play(steps: Step[], limits: SchedulerLimits = WIDE) {
  const scheduler = new SubagentScheduler(limits);
  const leases = new Map<string, Lease>();
  const outcomes = new Map<string, string>();
  const track = (key: string, promise: Promise<void>) => {
    outcomes.set(key, 'waiting');
    promise.then(
      () => outcomes.set(key, 'done'),
      (error: Error) => outcomes.set(key, `${error.name}: ${error.message}`),
    );
  };
  for (const step of steps) {
    if ('acquire' in step) {
      const { taskId } = step.acquire;
      void scheduler.acquire(step.acquire).then((lease) => leases.set(taskId, lease));
    } else if ('realize' in step) {
      const [task, path] = step.realize;
      track(`${task} realize ${path}`, (leases.get(task) as Lease).realize(path));
    } else if ('widen' in step) track(`${step.widen} widen`, (leases.get(step.widen) as Lease).widen());
    else if ('shrink' in step) leases.get(step.shrink)?.shrink();
    else leases.get(step.release)?.release();
    await flush();
  }
  return { scheduler, outcomes: Object.fromEntries(outcomes) };
}

const shrinkable = (taskId: string): SlotRequest => ({
  taskId,
  writer: true,
  claim: { ...claim('workspace'), shrinkable: true },
});

describe('SubagentScheduler: claims at run time wait instead of failing', () => {
  const cases: {
    name: string;
    steps: Step[];
    running: string[];
    queued?: Record<string, WaitCause>;
    writing?: Record<string, WaitCause>;
    outcomes: Record<string, string | RegExp>;
  }[] = [
    {
      name: 'two directory claims on one directory start together and realize different files at once',
      steps: [
        { acquire: writer('a', ['src/']) },
        { acquire: writer('b', ['src/']) },
        { realize: ['a', 'src/one.ts'] },
        { realize: ['b', 'src/two.ts'] },
      ],
      running: ['a', 'b'],
      outcomes: { 'a realize src/one.ts': 'done', 'b realize src/two.ts': 'done' },
    },
    {
      name: 'both realizing one file: the second waits for the first to end, then writes',
      steps: [
        { acquire: writer('a', ['src/']) },
        { acquire: writer('b', ['src/']) },
        { realize: ['a', 'src/one.ts'] },
        { realize: ['b', 'src/one.ts'] },
      ],
      running: ['a', 'b'],
      writing: { b: 'claim: src/one.ts held by a' },
      outcomes: { 'a realize src/one.ts': 'done', 'b realize src/one.ts': 'waiting' },
    },
    {
      name: 'the waiting realize goes on once the holder ends',
      steps: [
        { acquire: writer('a', ['src/']) },
        { acquire: writer('b', ['src/']) },
        { realize: ['a', 'src/one.ts'] },
        { realize: ['b', 'src/one.ts'] },
        { release: 'a' },
      ],
      running: ['b'],
      outcomes: { 'a realize src/one.ts': 'done', 'b realize src/one.ts': 'done' },
    },
    {
      name: "a directory writer realizing a file another writer's file claim holds waits for it",
      steps: [
        { acquire: writer('f', ['lib/x.ts']) },
        { acquire: writer('d', ['src/']) },
        { realize: ['d', 'lib/x.ts'] },
      ],
      running: ['f', 'd'],
      writing: { d: 'claim: lib/x.ts held by f' },
      outcomes: { 'd realize lib/x.ts': 'waiting' },
    },
    {
      name: 'a file a running writer waits for goes to it, not to a writer that queued after it',
      steps: [
        { acquire: writer('f', ['lib/x.ts']) },
        { acquire: writer('d', ['src/']) },
        { realize: ['d', 'lib/x.ts'] },
        { acquire: writer('c', ['lib/x.ts']) },
        { release: 'f' },
      ],
      running: ['d'],
      queued: { c: 'claim: lib/x.ts held by d' },
      outcomes: { 'd realize lib/x.ts': 'done' },
    },
    {
      name: 'writers waiting on each other are a deadlock: the one closing the cycle fails, naming both',
      steps: [
        { acquire: writer('a', ['src/']) },
        { acquire: writer('b', ['src/']) },
        { realize: ['a', 'src/one.ts'] },
        { realize: ['b', 'src/two.ts'] },
        { realize: ['a', 'src/two.ts'] },
        { realize: ['b', 'src/one.ts'] },
      ],
      running: ['a', 'b'],
      writing: { a: 'claim: src/two.ts held by b' },
      outcomes: {
        'a realize src/two.ts': 'waiting',
        'b realize src/one.ts':
          /^ClaimDeadlockError: claim deadlock: task b waits for src\/one\.ts held by task a; task a waits for src\/two\.ts/,
      },
    },
    {
      name: 'a bash write (widen) waits for the other writers of the checkout, then holds it all',
      steps: [
        { acquire: shrinkable('w') },
        { realize: ['w', 'mine.ts'] },
        { shrink: 'w' },
        { acquire: writer('x', ['other.ts']) },
        { widen: 'w' },
        { acquire: writer('y', ['third.ts']) },
      ],
      running: ['w', 'x'],
      queued: { y: 'claim: . held by w' },
      writing: { w: 'claim: other.ts held by x' },
      outcomes: { 'w realize mine.ts': 'done', 'w widen': 'waiting' },
    },
    {
      name: 'two writers of one checkout that both run bash deadlock; the second fails at once',
      steps: [
        { acquire: shrinkable('w') },
        { realize: ['w', 'a.ts'] },
        { shrink: 'w' },
        { acquire: writer('v', ['b.ts']) },
        { widen: 'w' },
        { widen: 'v' },
      ],
      running: ['w', 'v'],
      writing: { w: 'claim: b.ts held by v' },
      outcomes: {
        'w widen': 'waiting',
        'v widen': /^ClaimDeadlockError: claim deadlock: task v waits for \./,
      },
    },
    {
      name: "an isolated writer's bash never widens its claim (it writes in its own worktree)",
      steps: [
        { acquire: { taskId: 'i', writer: true, claim: { ...claim(['a.ts']), ownCheckout: true } } },
        { acquire: writer('x', ['b.ts']) },
        { widen: 'i' },
        { acquire: writer('y', ['c.ts']) },
      ],
      running: ['i', 'x', 'y'],
      outcomes: { 'i widen': 'done' },
    },
    {
      name: 'a writer ending while it waits releases the wait with a reason',
      steps: [
        { acquire: writer('a', ['src/']) },
        { acquire: writer('b', ['src/']) },
        { realize: ['a', 'src/one.ts'] },
        { realize: ['b', 'src/one.ts'] },
        { release: 'b' },
      ],
      running: ['a'],
      outcomes: {
        'b realize src/one.ts': /^Error: task b ended while it waited for claim: src\/one\.ts held by a/,
      },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const { scheduler, outcomes } = await play(c.steps);
      expect(scheduler.running().sort()).toEqual([...c.running].sort());
      expect(Object.fromEntries(scheduler.queued().map((q) => [q.taskId, q.cause]))).toEqual(c.queued ?? {});
      expect(Object.fromEntries(scheduler.waitingToWrite().map((w) => [w.taskId, w.cause]))).toEqual(
        c.writing ?? {},
      );
      for (const [key, expected] of Object.entries(c.outcomes)) {
        if (typeof expected === 'string') expect(outcomes[key], key).toBe(expected);
        else expect(outcomes[key], key).toMatch(expected);
      }
    });
  }

  it('a deadlock names fleet items by their labels', async () => {
    const scheduler = new SubagentScheduler(WIDE);
    const a = await scheduler.acquire(writer('t1', ['src/'], { label: 'fleet item "impl" (task t1)' }));
    const b = await scheduler.acquire(writer('t2', ['src/'], { label: 'fleet item "docs" (task t2)' }));
    await a.realize('src/a.ts');
    await b.realize('src/b.ts');
    const waiting = a.realize('src/b.ts');
    const failed = b.realize('src/a.ts');
    await expect(failed).rejects.toBeInstanceOf(ClaimDeadlockError);
    await expect(failed).rejects.toThrow(
      'claim deadlock: fleet item "docs" (task t2) waits for src/a.ts held by fleet item "impl" (task t1); fleet item "impl" (task t1) waits for src/b.ts (claim: src/b.ts held by t2)',
    );
    b.release();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('an aborted wait rejects with the reason and frees what it waited for', async () => {
    const scheduler = new SubagentScheduler(WIDE);
    const a = await scheduler.acquire(writer('a', ['src/']));
    const b = await scheduler.acquire(writer('b', ['src/']));
    await a.realize('src/x.ts');
    const controller = new AbortController();
    const waiting = b.realize('src/x.ts', controller.signal);
    controller.abort(new Error('cancelled by the user'));
    await expect(waiting).rejects.toThrow('cancelled by the user');
    expect(scheduler.waitingToWrite()).toEqual([]);
  });
});
