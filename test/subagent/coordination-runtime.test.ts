import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/agent/model-stream.js';
import {
  call,
  git,
  harness,
  idIn,
  reply,
  text,
  toolResults,
  userTexts,
  writerRun,
} from '../support/runtime-harness.js';

describe('retry_of under coordinated dispatch', () => {
  it('retries a failed task once, reports the budget, and refuses a second retry with the reason', async () => {
    let childCalls = 0;
    let first = '';
    const seen: ModelRequest[] = [];
    const { runtime } = harness({
      child: () => {
        childCalls += 1;
        return childCalls === 1
          ? reply([{ type: 'error', error: new Error('model exploded') }])
          : reply(text('found it'));
      },
      main: (n, request) => {
        seen.push(request);
        switch (n) {
          case 1:
            return reply([call('task', { agent: 'researcher', prompt: 'look', background: true })]);
          case 2:
            first = idIn(toolResults(request)[0]);
            return reply(text('waiting'));
          case 3:
            return reply([call('task', { prompt: 'look again', background: true, retry_of: first })]);
          case 4:
            return reply(text('waiting'));
          case 5:
            return reply([call('task', { agent: 'researcher', prompt: 'and again', retry_of: first })]);
          default:
            return reply(text('done'));
        }
      },
    });
    const result = await runtime.prompt('go');
    expect(result.text).toBe('done');
    const firstReconciliation = userTexts(seen[2]).at(-1) ?? '';
    expect(firstReconciliation).toContain(
      `[task ${first} (readonly)] prompt: look\nretry budget: 1/1 available\nfailed: `,
    );
    expect(firstReconciliation).toContain('model exploded');
    const retry = idIn(toolResults(seen[3])[0]);
    const second = userTexts(seen[4]).at(-1) ?? '';
    expect(second).toContain(
      `[task ${retry} (readonly)] prompt: look again\nretry of: ${first}\ncompleted: found it`,
    );
    expect(toolResults(seen[5])[0]).toMatch(
      new RegExp(`retry_of ${first} refused: .*already retried by ${retry}`),
    );
  });

  it('refuses to retry a cancelled task: cancelled work is not retryable by design', async () => {
    let cancelled = '';
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: ModelRequest[] = [];
    const h = harness({
      child: (request) =>
        (async function* () {
          await blocked;
          if (request.signal.aborted) throw request.signal.reason;
          yield* reply(text('late'));
        })(),
      main: (n, request) => {
        seen.push(request);
        if (n === 1) return reply([call('task', { agent: 'researcher', prompt: 'slow', background: true })]);
        if (n === 2) {
          cancelled = idIn(toolResults(request)[0]);
          return reply(text('waiting'));
        }
        if (n === 3)
          return reply([call('task', { agent: 'researcher', prompt: 'slow', retry_of: cancelled })]);
        return reply(text('done'));
      },
    });
    const running = h.runtime.prompt('go');
    await h.runtime.subagents.waitFor((m) => m.list().some((t) => t.state === 'running'));
    h.runtime.subagents.cancel(h.runtime.subagents.list()[0].id);
    release();
    await running;
    expect(userTexts(seen[2]).at(-1)).toContain(
      `[task ${cancelled} (readonly)] prompt: slow\ncancelled: cancelled by the user`,
    );
    expect(toolResults(seen[3])[0]).toContain('cancelled work is not retryable by design');
  });
});

describe('batches: cap, queue cause and the barrier', () => {
  it('runs at most 4 of a batch at once, the rest waiting for "batch"; task_status gives no partial result', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: ModelRequest[] = [];
    let statusAnswered!: () => void;
    const statusSeen = new Promise<void>((resolve) => {
      statusAnswered = resolve;
    });
    const h = harness({
      child: (request) =>
        (async function* () {
          await gate;
          yield* reply(text(`answer to ${userTexts(request)[0]}`));
        })(),
      main: (n, request) => {
        seen.push(request);
        if (n === 1)
          return reply(
            Array.from({ length: 6 }, (_, i) =>
              call('task', { agent: 'researcher', prompt: `q${i}`, background: true }),
            ),
          );
        if (n === 2)
          return reply([call('task_status', { task_id: idIn(toolResults(request)[5]), wait: true })]);
        if (n === 3) {
          statusAnswered();
          return reply(text('waiting'));
        }
        return reply(text('done'));
      },
    });
    const running = h.runtime.prompt('go');
    const scheduler = h.runtime.subagents.schedulerState;
    await scheduler.waitFor((s) => s.runningCount === 4 && s.queued().length === 2);
    expect(scheduler.queued().map((q) => q.cause)).toEqual(['batch', 'batch']);
    const queuedEvents = h.events.filter((e) => e.type === 'subagent_queued');
    expect(queuedEvents).toHaveLength(2);
    expect(queuedEvents.every((e) => e.type === 'subagent_queued' && e.cause === 'batch' && e.batchId)).toBe(
      true,
    );
    await statusSeen;
    expect(toolResults(seen[2])[0]).toMatch(
      /is queued, position 2, waiting for batch; it belongs to coordinator batch b-[0-9a-f]+, whose results will be delivered at reconciliation/,
    );
    release();
    await running;
    const reconciliation = userTexts(seen[3]).at(-1) ?? '';
    expect(reconciliation.match(/\[task [0-9a-f]{12} \(readonly\)\] prompt: q\d/g)).toEqual(
      ['q0', 'q1', 'q2', 'q3', 'q4', 'q5'].map((q) => expect.stringContaining(q)),
    );
    const batchEvents = h.events.filter((e) => e.type === 'batch_reconciled');
    expect(batchEvents).toHaveLength(1);
  });
});

describe('isolated writers in worktrees', () => {
  it('keeps a writer with commits in its own worktree and branch, the parent checkout untouched', async () => {
    const h = writerRun([
      'echo new > added.txt && git add added.txt && git -c user.name=w -c user.email=w@x commit -qm "Add file"',
    ]);
    await h.runtime.prompt('go');
    const reconciliation = userTexts(h.seen[2]).at(-1) ?? '';
    const branch = /writer branch: (cadre-task-[0-9a-f-]{36})/.exec(reconciliation)?.[1] ?? '';
    const path = /writer salvage path: (.+)/.exec(reconciliation)?.[1] ?? '';
    expect(reconciliation).toContain('writer isolation: worktree');
    expect(reconciliation).toContain('writer worktree: clean; retained for salvage');
    const sha = git(h.dir, 'rev-parse', branch);
    expect(reconciliation).toContain(`writer commits: ${sha}`);
    expect(path.endsWith(branch)).toBe(true);
    expect(readFileSync(`${path}/added.txt`, 'utf8')).toBe('new\n');
    expect(existsSync(`${h.dir}/added.txt`)).toBe(false);
    expect(git(h.dir, 'status', '--porcelain')).toBe('');
  });

  it('removes a clean worktree with no commits, branch and all', async () => {
    const h = writerRun(['ls']);
    await h.runtime.prompt('go');
    const reconciliation = userTexts(h.seen[2]).at(-1) ?? '';
    expect(reconciliation).toContain(
      'writer isolation: worktree\nwriter worktree removed (clean with no commits)\ncompleted: writer done',
    );
    expect(reconciliation).not.toContain('writer branch:');
    expect(git(h.dir, 'branch', '--list', 'cadre-task-*')).toBe('');
    expect(git(h.dir, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('keeps a dirty worktree and reports it dirty', async () => {
    const h = writerRun(['echo half > wip.txt']);
    await h.runtime.prompt('go');
    const reconciliation = userTexts(h.seen[2]).at(-1) ?? '';
    expect(reconciliation).toContain('writer worktree: dirty; retained for salvage');
    expect(reconciliation).not.toContain('writer commits:');
    const path = /writer salvage path: (.+)/.exec(reconciliation)?.[1] ?? '';
    expect(readFileSync(`${path}/wip.txt`, 'utf8')).toBe('half\n');
  });

  it("carries a detached writer's commits onto its branch and moves no other ref", async () => {
    // Unconfined here; under a confining sandbox the writer cannot move other refs at all
    // (test/subagent/writer-store.test.ts). Nothing of the shared store is ever put back.
    const h = writerRun(['git -c user.name=w -c user.email=w@x commit -q --allow-empty -m "writer work"']);
    const before = git(h.runtime.projectRoot, 'rev-parse', 'refs/heads/main');
    await h.runtime.prompt('go');
    expect(git(h.runtime.projectRoot, 'rev-parse', 'refs/heads/main')).toBe(before);
    const reconciliation = userTexts(h.seen[2]).at(-1) ?? '';
    const branch = /writer branch: (\S+)/.exec(reconciliation)?.[1] ?? '';
    expect(git(h.runtime.projectRoot, 'log', '-1', '--format=%s', branch)).toBe('writer work');
    expect(reconciliation).not.toContain('cadre kept a change out');
  });
});

describe("the parent's own writes (SPEC 10)", () => {
  it('fail at once while a writer holds the file through its claim, and go through afterwards', async () => {
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: ModelRequest[] = [];
    const h = harness({
      git: true,
      config: { subagent_dispatch_strategy: 'off', subagent_write_isolation: 'serialize' },
      child: () =>
        (async function* () {
          await blocked;
          yield* reply(text('writer done'));
        })(),
      main: (n, request) => {
        seen.push(request);
        if (n === 1) return reply([call('task', { agent: 'implementer', prompt: 'w', background: true })]);
        if (n === 2) return reply([call('write', { path: 'mine.txt', content: 'x' })]);
        if (n === 3) {
          release();
          return reply(text('waiting'));
        }
        if (n === 4) return reply([call('write', { path: 'mine.txt', content: 'x' })]);
        return reply(text('done'));
      },
    });
    await h.runtime.prompt('go');
    const writer = idIn(toolResults(seen[1])[0]);
    expect(toolResults(seen[2])[0]).toBe(
      `cannot write mine.txt now: claim: . held by ${writer}. A subagent is writing it; wait for it to finish.`,
    );
    expect(toolResults(seen[4])[0]).toMatch(/^Created mine\.txt/);
  });
});
