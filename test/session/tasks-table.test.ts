import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { AmbiguousTaskIdError } from '../../src/session/tasks-table.js';
import type { TaskStatus } from '../../src/session/types.js';
import { useTempStore } from './temp-store.js';

function ambiguityOf(lookup: () => unknown): AmbiguousTaskIdError {
  try {
    lookup();
  } catch (error) {
    if (error instanceof AmbiguousTaskIdError) return error;
    throw error;
  }
  throw new Error('expected an AmbiguousTaskIdError, but the lookup succeeded');
}

describe('tasks table', () => {
  const temp = useTempStore();

  function parentSession(projectRoot = '/r') {
    return temp().store.createSession({ projectRoot, cwd: projectRoot });
  }

  it('creates a queued task with defaults and reads it back', () => {
    const { store } = temp();
    const parent = parentSession();
    const task = store.createTask({ parentSessionId: parent.id, prompt: 'find the bug' });
    expect(task).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{12}$/),
      parentSessionId: parent.id,
      childSessionId: null,
      profile: null,
      tier: null,
      model: null,
      description: null,
      prompt: 'find the bug',
      status: 'queued',
      background: false,
      result: null,
      error: null,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
      createdAt: expect.any(Number),
      startedAt: null,
      endedAt: null,
      isolation: null,
      worktreePath: null,
      branch: null,
      retryOf: null,
      ownerPid: process.pid,
      writePaths: null,
      batchId: null,
      repoRoot: null,
      worktreeBase: null,
      worktreeState: null,
      commits: null,
      changedFiles: null,
    });
    expect(store.getTask(task.id)).toEqual(task);
  });

  it('records a writer task’s whole life: run, result, worktree, tokens', () => {
    const { store } = temp();
    const parent = parentSession();
    const child = store.createSession({ projectRoot: '/r', cwd: '/wt', parentId: parent.id });
    const task = store.createTask({
      parentSessionId: parent.id,
      prompt: 'implement it',
      description: 'implement',
      profile: 'writer',
      tier: 'readwrite',
      model: 'careful',
      background: true,
    });
    store.updateTask(task.id, { status: 'running', startedAt: 10, childSessionId: child.id });
    const bigResult = `done ${'r'.repeat(100_000)}`;
    const finished = store.updateTask(task.id, {
      status: 'completed',
      endedAt: 20,
      result: bigResult,
      inputTokens: 1234,
      outputTokens: 56,
      costUsd: 0.02,
      isolation: 'worktree',
      worktreePath: '/repos/cadre-task-1',
      branch: 'cadre-task-1',
    });
    expect(finished).toMatchObject({
      status: 'completed',
      background: true,
      profile: 'writer',
      tier: 'readwrite',
      childSessionId: child.id,
      startedAt: 10,
      endedAt: 20,
      inputTokens: 1234,
      outputTokens: 56,
      costUsd: 0.02,
      isolation: 'worktree',
      worktreePath: '/repos/cadre-task-1',
      branch: 'cadre-task-1',
    });
    expect(store.getTask(task.id)?.result).toBe(bigResult);
  });

  it('leaves fields absent from a patch untouched and clears fields set to null', () => {
    const { store } = temp();
    const task = store.createTask({ parentSessionId: parentSession().id, prompt: 'p', model: 'm' });
    store.updateTask(task.id, { error: 'boom', status: 'failed' });
    const updated = store.updateTask(task.id, { model: null, error: undefined });
    expect(updated).toMatchObject({ model: null, error: 'boom', status: 'failed' });
  });

  it('links a retry to the task it retries', () => {
    const { store } = temp();
    const parent = parentSession();
    const failed = store.createTask({ parentSessionId: parent.id, prompt: 'p', status: 'failed' });
    const retry = store.createTask({ parentSessionId: parent.id, prompt: 'p', retryOf: failed.id });
    expect(store.getTask(retry.id)?.retryOf).toBe(failed.id);
  });

  it.each<[string, () => void, RegExp]>([
    [
      'an update of an unknown task',
      () => temp().store.updateTask('ffffffffffff', { status: 'failed' }),
      /no task/,
    ],
    [
      'an invalid status',
      () => {
        const { store } = temp();
        const task = store.createTask({ parentSessionId: parentSession().id, prompt: 'p' });
        store.updateTask(task.id, { status: 'done' as TaskStatus });
      },
      /invalid task status "done"/,
    ],
    [
      'a task for an unknown parent session',
      () => temp().store.createTask({ parentSessionId: 'ghost', prompt: 'p' }),
      /FOREIGN KEY/,
    ],
  ])('refuses %s', (_name, act, message) => {
    expect(act).toThrow(message);
  });

  it('finds a task by a unique prefix of its id', () => {
    const { store } = temp();
    const task = store.createTask({ parentSessionId: parentSession().id, prompt: 'p' });
    expect(store.getTask(task.id.slice(0, 12))?.id).toBe(task.id);
    expect(store.getTask(task.id.slice(0, 4))?.id).toBe(task.id);
    expect(store.getTask('zz')).toBeUndefined();
    expect(store.getTask('')).toBeUndefined();
  });

  it('refuses an ambiguous prefix, listing the candidates', () => {
    const { store } = temp();
    const parent = parentSession();
    // 17 ids over 16 hex digits: two of them must share their first character.
    const ids = Array.from(
      { length: 17 },
      () => store.createTask({ parentSessionId: parent.id, prompt: 'p' }).id,
    );
    const prefix = [...'0123456789abcdef'].find(
      (digit) => ids.filter((id) => id.startsWith(digit)).length > 1,
    );
    if (prefix === undefined) throw new Error('pigeonhole principle violated');
    const expected = ids.filter((id) => id.startsWith(prefix)).sort();

    const ambiguity = ambiguityOf(() => store.getTask(prefix));
    expect(ambiguity.candidates).toEqual(expected.slice(0, 10));
    expect(ambiguity.more).toBe(expected.length > 10);
    for (const id of ambiguity.candidates) expect(ambiguity.message).toContain(id);
  });

  it('lists at most 10 candidates and says when there are more', () => {
    const { store } = temp();
    const parent = parentSession();
    // At most 161 ids over 16 first digits before one digit has 11 of them.
    const byDigit = new Map<string, number>();
    let crowded: string | undefined;
    while (crowded === undefined) {
      const digit = store.createTask({ parentSessionId: parent.id, prompt: 'p' }).id[0];
      const count = (byDigit.get(digit) ?? 0) + 1;
      byDigit.set(digit, count);
      if (count === 11) crowded = digit;
    }
    const prefix = crowded;
    const ambiguity = ambiguityOf(() => store.getTask(prefix));
    expect(ambiguity.candidates).toHaveLength(10);
    expect(ambiguity.more).toBe(true);
    expect(ambiguity.message).toMatch(/ and more$/);
  });

  it('lists tasks newest first, by parent session, project and status', () => {
    const { store } = temp();
    const alpha = parentSession('/alpha');
    const alphaLater = parentSession('/alpha');
    const beta = parentSession('/beta');
    const a1 = store.createTask({ parentSessionId: alpha.id, prompt: '1' });
    const b1 = store.createTask({ parentSessionId: beta.id, prompt: '2' });
    const a2 = store.createTask({ parentSessionId: alphaLater.id, prompt: '3', status: 'running' });

    expect(store.listTasks().map((t) => t.id)).toEqual([a2.id, b1.id, a1.id]);
    expect(store.listTasks({ parentSessionId: alpha.id }).map((t) => t.id)).toEqual([a1.id]);
    expect(store.listTasks({ projectRoot: '/alpha' }).map((t) => t.id)).toEqual([a2.id, a1.id]);
    expect(store.listTasks({ projectRoot: '/alpha', status: 'running' }).map((t) => t.id)).toEqual([a2.id]);
    expect(store.listTasks({ limit: 2 }).map((t) => t.id)).toEqual([a2.id, b1.id]);
  });

  it('marks the unfinished tasks of processes that have exited interrupted, and only those', () => {
    const { dir } = temp();
    const parent = parentSession();
    const deadOwner = openSessionStore(dir, { pid: 111 });
    const liveOwner = openSessionStore(dir, { pid: 222 });
    try {
      const orphanRunning = deadOwner.createTask({
        parentSessionId: parent.id,
        prompt: 'p',
        status: 'running',
      });
      const orphanQueued = deadOwner.createTask({ parentSessionId: parent.id, prompt: 'p' });
      const finished = deadOwner.createTask({ parentSessionId: parent.id, prompt: 'p', status: 'completed' });
      const alive = liveOwner.createTask({ parentSessionId: parent.id, prompt: 'p', status: 'running' });
      const mine = temp().store.createTask({ parentSessionId: parent.id, prompt: 'p', status: 'running' });

      const isAlive = (pid: number) => pid === 222;
      const interrupted = temp().store.interruptOrphanedTasks(isAlive);

      expect(interrupted.map((task) => task.id).sort()).toEqual([orphanRunning.id, orphanQueued.id].sort());
      for (const task of interrupted) {
        expect(task).toMatchObject({ status: 'interrupted', ownerPid: 111, endedAt: expect.any(Number) });
        expect(task.error).toMatch(/interrupted: the cadre process running it \(pid 111\) exited/);
      }
      const { store } = temp();
      expect(store.getTask(finished.id)?.status).toBe('completed');
      expect(store.getTask(alive.id)?.status).toBe('running');
      expect(store.getTask(mine.id)?.status).toBe('running');
      expect(store.interruptOrphanedTasks(isAlive)).toEqual([]);
    } finally {
      deadOwner.close();
      liveOwner.close();
    }
  });
});

describe('task write paths', () => {
  const temp = useTempStore();

  it('keeps the write_paths a dispatch declared', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    const task = store.createTask({
      parentSessionId: session.id,
      prompt: 'w',
      writePaths: ['src/a.ts', 'docs/'],
    });
    expect(store.getTask(task.id)?.writePaths).toEqual(['src/a.ts', 'docs/']);
  });
});

describe('tasks table: writer worktrees', () => {
  const temp = useTempStore();

  it('records a batch, a worktree and its commits and changed files as lists', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    const task = store.createTask({ parentSessionId: session.id, prompt: 'w', batchId: 'b-1' });
    const updated = store.updateTask(task.id, {
      isolation: 'worktree',
      worktreePath: '/p-wt',
      branch: 'cadre-task-x',
      repoRoot: '/p',
      worktreeBase: 'abc',
      worktreeState: 'retained',
      commits: ['c1', 'c2'],
      changedFiles: ['a.txt'],
    });
    expect(updated).toMatchObject({
      batchId: 'b-1',
      worktreeState: 'retained',
      commits: ['c1', 'c2'],
      changedFiles: ['a.txt'],
      repoRoot: '/p',
      worktreeBase: 'abc',
    });
    expect(store.getTask(task.id)).toEqual(updated);
  });
});
