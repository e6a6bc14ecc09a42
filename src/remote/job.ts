import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PermissionCeiling } from '../permission/decide.js';
import type { PermissionGateOptions } from '../permission/gate.js';
import type { ModelParams } from '../provider/route.js';
import type { McpChoice } from '../subagent/child-loop.js';

/**
 * One subagent run as the root hands it to a worker (issue 18): everything the child is made of, computed
 * by the root. The worker's own config never widens it: rules, tier, ceiling and sandbox come from here;
 * only the model's credentials and the machine's sandbox paths are the worker's.
 */
export interface JobSpec {
  /** Unique per attempt the root makes; a worker runs an id at most once (no replay). */
  id: string;
  taskId: string;
  /** Epoch ms after which no worker starts it. */
  expiresAt: number;
  /** The root's cadre version: a worker of another version refuses the job. */
  version: string;
  /** The shared repository, compared exactly with the worker's `workers.repository`. */
  repository: string;
  /**
   * The checkout: the base ref the root pushes, its commit, and a writer's own branch. `announced`: the
   * ref was still being pushed when the job went to the queue, and the root says on the reply channel
   * (`base`) once it is there; a worker that lacks the commit fetches it only then.
   */
  base?: { ref: string; sha: string; announced?: boolean };
  branch?: string;
  /** `confining`: the child runs tools, so the worker must have a working OS sandbox. */
  sandbox: { required: 'confining' | 'none'; network: boolean; readOnly: boolean };
  tier: string;
  /** The built-in tools the child gets (already narrowed by tier, profile and call). */
  tools: string[];
  /**
   * How the child's MCP tools are chosen from the worker's own configured servers (never servers the job
   * names: a job starts nothing on a worker), then narrowed by the composed rules like every tool.
   */
  mcp: McpChoice;
  system: string;
  prompt: string;
  maxTurns: number;
  turnCapLabel: string;
  timeoutSecs: number;
  /** An ask the root has not answered within this is denied with the reason (`workers.ask_timeout_ms`). */
  askTimeoutMs: number;
  /** A model route by alias (the worker's own provider entry), never a key. */
  model: { alias?: string; type: string; model: string; params: ModelParams };
  gate: {
    options: Omit<PermissionGateOptions, 'ceiling' | 'root' | 'home'>;
    ceiling: PermissionCeiling;
    approvals: string[];
  };
}

/** What travels through the queue: the job and its signature. */
export interface SignedJob {
  spec: JobSpec;
  signature: string;
}

/** JSON with object keys sorted at every level, so the signature does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function mac(secret: string, spec: JobSpec): string {
  return createHmac('sha256', secret).update(canonicalJson(spec)).digest('hex');
}

/** HMAC-SHA256 over the whole job, its id and expiry included (signed, not encrypted). */
export function signJob(spec: JobSpec, secret: string): SignedJob {
  return { spec, signature: mac(secret, spec) };
}

/** Why a worker will not run a job; undefined when it may. */
export function jobRefusal(
  job: unknown,
  secret: string,
  check: { now: number; alreadyRan(id: string): boolean },
): string | undefined {
  if (job === null || typeof job !== 'object') return 'the job is not a signed cadre job';
  const { spec, signature } = job as Partial<SignedJob>;
  if (!spec || typeof spec !== 'object' || typeof spec.id !== 'string')
    return 'the job is not a signed cadre job';
  if (typeof signature !== 'string' || signature === '') return 'the job is unsigned';
  const expected = Buffer.from(mac(secret, spec), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'the job signature is invalid (a different workers secret, or the job was altered)';
  if (typeof spec.expiresAt !== 'number' || spec.expiresAt <= check.now)
    return `the job expired at ${new Date(spec.expiresAt).toISOString()}`;
  if (check.alreadyRan(spec.id)) return `job ${spec.id} was already run by this worker (replay refused)`;
  return undefined;
}

/** What a worker is, as far as accepting a job goes. */
export interface WorkerFacts {
  version: string;
  sandbox: { ok: boolean; reason?: string };
  /** Its `workers.repository`: the only repository it checks out. */
  repository?: string;
  /** Its provider aliases. */
  aliases: readonly string[];
}

/** Why a worker will not run a correctly signed job: another version, sandbox, repository or model. */
export function workerMismatch(spec: JobSpec, worker: WorkerFacts): string | undefined {
  if (spec.version !== worker.version)
    return `the job needs cadre ${spec.version}; this worker runs cadre ${worker.version}`;
  if (spec.sandbox.required === 'confining' && !worker.sandbox.ok)
    return `the job needs a confining sandbox; this worker has none (${worker.sandbox.reason ?? 'unknown reason'})`;
  if (spec.base && worker.repository === undefined)
    return 'this worker has no workers.repository configured, so it accepts no repository';
  if (spec.base && spec.repository !== worker.repository)
    return `the job's repository ${spec.repository} is not this worker's workers.repository ${worker.repository}`;
  if (spec.model.alias !== undefined && !worker.aliases.includes(spec.model.alias))
    return `this worker has no provider alias "${spec.model.alias}" (its aliases: ${worker.aliases.join(', ') || 'none'})`;
  return undefined;
}
