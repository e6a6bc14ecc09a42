import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  type JobSpec,
  jobRefusal,
  signJob,
  type WorkerFacts,
  workerMismatch,
} from '../../src/remote/job.js';

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
    mcp: { grant: undefined, tier: 'readwrite', readOnly: true },
    system: 'You write.',
    prompt: 'write a file',
    maxTurns: 25,
    turnCapLabel: 'max_steps 25',
    timeoutSecs: 600,
    askTimeoutMs: 600_000,
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

describe('what a worker accepts beyond the signature', () => {
  const worker: WorkerFacts = {
    version: '0.1.0',
    sandbox: { ok: true },
    repository: '/srv/shared.git',
    aliases: ['fake', 'other'],
  };
  const cases: { name: string; spec: JobSpec; worker?: Partial<WorkerFacts>; refusal?: string }[] = [
    { name: 'a matching job', spec: spec() },
    {
      name: 'another cadre version',
      spec: spec({ version: '0.2.0' }),
      refusal: 'the job needs cadre 0.2.0; this worker runs cadre 0.1.0',
    },
    {
      name: 'a tooled job on a worker without a sandbox',
      spec: spec(),
      worker: { sandbox: { ok: false, reason: 'no working bubblewrap: denied' } },
      refusal: 'the job needs a confining sandbox; this worker has none (no working bubblewrap: denied)',
    },
    {
      name: 'a toolless job needs no sandbox',
      spec: spec({ sandbox: { required: 'none', network: true, readOnly: false }, base: undefined }),
      worker: { sandbox: { ok: false, reason: 'none' } },
    },
    {
      name: 'a repository compared exactly (a trailing slash differs)',
      spec: spec({ repository: '/srv/shared.git/' }),
      refusal:
        "the job's repository /srv/shared.git/ is not this worker's workers.repository /srv/shared.git",
    },
    {
      name: 'a worker with no repository configured',
      spec: spec(),
      worker: { repository: undefined },
      refusal: 'this worker has no workers.repository configured, so it accepts no repository',
    },
    {
      name: 'an alias the worker lacks',
      spec: spec({ model: { alias: 'opus', type: 'anthropic', model: 'm', params: {} } }),
      refusal: 'this worker has no provider alias "opus" (its aliases: fake, other)',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      expect(workerMismatch(c.spec, { ...worker, ...c.worker })).toBe(c.refusal);
    });
});
