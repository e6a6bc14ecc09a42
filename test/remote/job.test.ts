import { describe, expect, it } from 'vitest';
import { canonicalJson, type JobSpec, jobRefusal, signJob } from '../../src/remote/job.js';

const NOW = 1_800_000_000_000;

function spec(overrides: Partial<JobSpec> = {}): JobSpec {
  return {
    id: 'task1-abcd',
    taskId: 'task1',
    expiresAt: NOW + 60_000,
    version: '0.1.0',
    repository: '/srv/shared.git',
    base: { ref: 'refs/cadre/base/task1', sha: 'a'.repeat(40) },
    branch: 'cadre-task-1',
    sandbox: { required: 'confining', network: true, readOnly: false },
    tier: 'readwrite',
    tools: ['read', 'write', 'bash'],
    system: 'You write.',
    prompt: 'write a file',
    maxTurns: 25,
    turnCapLabel: 'max_steps 25',
    timeoutSecs: 600,
    model: { alias: 'fake', type: 'openai-compatible', model: 'm', params: {} },
    gate: {
      options: { safety: 'full', yes: true, headless: false },
      ceiling: { floor: 'full', denies: [] },
      approvals: [],
    },
    ...overrides,
  };
}

const never: { now: number; alreadyRan(id: string): boolean } = { now: NOW, alreadyRan: () => false };

describe('job signing', () => {
  it('canonical JSON does not depend on key order and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined, e: null }] })).toBe(
      '{"a":[{"d":2,"e":null}],"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  const signed = signJob(spec(), 'secret');
  const cases: { name: string; job: unknown; secret?: string; check?: typeof never; refusal?: RegExp }[] = [
    { name: 'a correctly signed job is accepted', job: signed },
    { name: 'not an object', job: 'run rm -rf /', refusal: /not a signed cadre job/ },
    { name: 'no spec', job: { signature: signed.signature }, refusal: /not a signed cadre job/ },
    { name: 'unsigned', job: { spec: spec() }, refusal: /unsigned/ },
    { name: 'signed with another secret', job: signJob(spec(), 'other'), refusal: /signature is invalid/ },
    {
      name: 'altered after signing (a widened rule list)',
      job: {
        spec: { ...spec(), gate: { ...spec().gate, approvals: ['bash(*)'] } },
        signature: signed.signature,
      },
      refusal: /signature is invalid/,
    },
    {
      name: 'altered expiry',
      job: { spec: { ...spec(), expiresAt: NOW + 10 ** 9 }, signature: signed.signature },
      refusal: /signature is invalid/,
    },
    { name: 'a truncated signature', job: { ...signed, signature: 'abcd' }, refusal: /signature is invalid/ },
    {
      name: 'expired',
      job: signJob(spec({ expiresAt: NOW - 1 }), 'secret'),
      refusal: /expired at 2027-01-15T07:59:59\.999Z/,
    },
    {
      name: 'an id this worker already ran (replay)',
      job: signed,
      check: { now: NOW, alreadyRan: (id) => id === 'task1-abcd' },
      refusal: /already run by this worker \(replay refused\)/,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const refusal = jobRefusal(c.job, c.secret ?? 'secret', c.check ?? never);
      if (c.refusal) expect(refusal).toMatch(c.refusal);
      else expect(refusal).toBeUndefined();
    });
});
