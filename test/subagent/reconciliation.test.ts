import { describe, expect, it } from 'vitest';
import {
  RECONCILIATION_HEADER,
  type ReconciledTask,
  reconciliationText,
  retryRefusal,
} from '../../src/subagent/reconciliation.js';

const base = { tier: 'readonly', prompt: 'look\n  around', outcome: 'found it' } as const;

describe('reconciliation message (SPEC 8)', () => {
  it('lists tasks in order, one blank line apart, prompts on one line, with the three writer shapes', () => {
    const tasks: ReconciledTask[] = [
      { ...base, id: 'r1', state: 'completed' },
      {
        id: 'w1',
        tier: 'readwrite',
        prompt: 'no-op',
        state: 'completed',
        outcome: 'nothing to do',
        writer: { isolation: 'worktree', branch: 'cadre-task-1', path: '/x/cadre-task-1', removed: true },
      },
      {
        id: 'w2',
        tier: 'readwrite',
        prompt: 'commit',
        state: 'completed',
        outcome: 'committed',
        writer: {
          isolation: 'worktree',
          branch: 'cadre-task-2',
          path: '/x/cadre-task-2',
          removed: false,
          dirty: false,
          commits: ['aaa', 'bbb'],
        },
      },
      {
        id: 'w3',
        tier: 'readwrite',
        prompt: 'half done',
        state: 'failed',
        outcome: 'model error',
        writer: {
          isolation: 'worktree',
          branch: 'cadre-task-3',
          path: '/x/cadre-task-3',
          removed: false,
          dirty: true,
          commits: [],
        },
      },
      {
        id: 'w4',
        tier: 'readwrite',
        prompt: 'p',
        state: 'cancelled',
        outcome: 'by the user',
        writer: { isolation: 'serialize' },
      },
    ];
    expect(reconciliationText(tasks)).toBe(
      [
        RECONCILIATION_HEADER,
        '',
        '[task r1 (readonly)] prompt: look around',
        'completed: found it',
        '',
        '[task w1 (readwrite)] prompt: no-op',
        'writer isolation: worktree',
        'writer worktree removed (clean with no commits)',
        'completed: nothing to do',
        '',
        '[task w2 (readwrite)] prompt: commit',
        'writer isolation: worktree',
        'writer branch: cadre-task-2',
        'writer worktree: clean; retained for salvage',
        'writer commits: aaa, bbb',
        'writer salvage path: /x/cadre-task-2',
        'completed: committed',
        '',
        '[task w3 (readwrite)] prompt: half done',
        'retry budget: 1/1 available',
        'writer isolation: worktree',
        'writer branch: cadre-task-3',
        'writer worktree: dirty; retained for salvage',
        'writer salvage path: /x/cadre-task-3',
        'failed: model error',
        '',
        '[task w4 (readwrite)] prompt: p',
        'writer isolation: serialized parent checkout',
        'cancelled: by the user',
      ].join('\n'),
    );
  });

  it('a failed retry shows what it retried and that the budget is spent; timed out reads as failed', () => {
    const text = reconciliationText([
      { ...base, id: 'r2', state: 'timed_out', outcome: 'timed out after 30 s', retryOf: 'r1' },
    ]);
    expect(text.split('\n\n')[1]).toBe(
      '[task r2 (readonly)] prompt: look around\nretry of: r1\nretry budget: exhausted by r2\nfailed: timed out after 30 s',
    );
  });
});

describe('retry_of refusals', () => {
  const cases: [string, Parameters<typeof retryRefusal>[1], RegExp | undefined][] = [
    ['failed once', { id: 'a', state: 'failed' }, undefined],
    ['timed out', { id: 'a', state: 'timed_out' }, undefined],
    ['interrupted by a crash', { id: 'a', state: 'interrupted' }, undefined],
    ['unknown', undefined, /unknown task "a"/],
    ['completed', { id: 'a', state: 'completed' }, /completed; only failed or timed-out/],
    ['running', { id: 'a', state: 'running' }, /still running/],
    ['queued', { id: 'a', state: 'queued' }, /still queued/],
    ['cancelled', { id: 'a', state: 'cancelled' }, /cancelled work is not retryable by design/],
    ['already retried', { id: 'a', state: 'failed', retriedBy: 'b' }, /already retried by b/],
    ['itself a retry', { id: 'b', state: 'failed', retryOf: 'a' }, /itself the retry of a/],
  ];
  for (const [name, target, refusal] of cases) {
    it(`${name}: ${refusal ? 'refused with the reason' : 'allowed'}`, () => {
      const answer = retryRefusal('a', target);
      if (refusal) expect(answer).toMatch(refusal);
      else expect(answer).toBeUndefined();
    });
  }
});
