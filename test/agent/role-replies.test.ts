import { describe, expect, it } from 'vitest';
import { parseApproval } from '../../src/agent/approval-asker.js';
import { parseVerdict } from '../../src/agent/critic.js';

describe('parseVerdict (the critic reply)', () => {
  it.each([
    ['VERDICT: approve\nGood.', 'approve', 'Good.'],
    ['verdict: REJECT\nMissing tests.\nAnd docs.', 'reject', 'Missing tests.\nAnd docs.'],
    ['**Verdict:** rejected - no error handling', 'reject', 'no error handling'],
    ['Approved. Looks right.', 'approve', 'Looks right.'],
    ['\n\n  reject\nwrong file', 'reject', 'wrong file'],
    ['I think it is fine', 'unclear', 'I think it is fine'],
    ['', 'unclear', ''],
    // A verdict mentioned later is not the verdict line.
    ['Hmm.\nVERDICT: reject', 'unclear', 'Hmm.\nVERDICT: reject'],
  ])('%j → %s', (reply, verdict, critique) => {
    expect(parseVerdict(reply)).toEqual({ verdict, critique });
  });
});

describe('parseApproval (the approval reply)', () => {
  it.each([
    ['APPROVE: part of the task', true, 'part of the task'],
    ['deny: deletes data', false, 'deletes data'],
    ['Approved', true, 'approved'],
    ['DENIED - out of scope\nmore', false, 'out of scope'],
    ['allow: fine', true, 'fine'],
  ])('%j → %s', (reply, approved, reason) => {
    expect(parseApproval(reply)).toEqual({ approved, reason });
  });

  it.each([[''], ['maybe'], ['I would approve this']])('%j names no decision and denies', (reply) => {
    const verdict = parseApproval(reply);
    expect(verdict.approved).toBe(false);
    expect(verdict.reason).toContain('gave no decision');
  });
});
