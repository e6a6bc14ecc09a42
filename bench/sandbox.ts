import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSandboxPolicy, type SandboxSettings } from '../src/sandbox/policy.js';
import { runBwrapProbe } from '../src/sandbox/probe.js';
import type { ShellSandbox } from '../src/sandbox/sandbox.js';
import { WarmPool } from '../src/sandbox/warm-pool.js';
import { type ShellChild, startShell } from '../src/tool/shell-process.js';
import { testSandboxSettings } from '../test/support/sandbox-settings.js';
import type { Figure } from './report.js';

const RUNS = 40;
const WARMUP = 3;

export interface SandboxCost {
  /** Undefined where bwrap does not work: nothing to measure. */
  unavailable?: string;
  runs: number;
  plainMs: number;
  /** Median extra time of one `bash -c true` under each policy, over plain bash. */
  extraMs: { name: string; ms: number }[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Between two calls an agent waits for the model at least this long (a fast local model's answer). */
const MODEL_GAP_MS = 30;

/** One `true` through the bash tool's own start (warm server or spawn), until its output is closed. */
async function timeCall(root: string, sandbox?: ShellSandbox): Promise<number> {
  const start = performance.now();
  const child: ShellChild = startShell('true', root, sandbox);
  child.stdout?.resume();
  child.stderr?.resume();
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const elapsed = performance.now() - start;
  if (code !== 0) throw new Error(`bench: bash -c true exited ${code}`);
  return elapsed;
}

/**
 * Issue 15: what the sandbox costs one `bash` call, measured on the bash tool's real path (policy, host
 * preparation, scrubbed env, the session's warm server or a per-call bwrap) against plain `bash -c true`
 * spawned from Node; the default policy, the optional network and PID-namespace flags flipped, and a
 * fresh bwrap per call (the path grants and background jobs take). Runs interleaved so drift hits all alike,
 * with a model's pause after each sandboxed call, when the next call's server starts as it does in a session.
 */
export async function benchSandbox(): Promise<SandboxCost> {
  const probe = runBwrapProbe();
  if (!probe.ok) return { unavailable: probe.error, runs: 0, plainMs: 0, extraMs: [] };
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-sandbox-'));
  const home = mkdtempSync(join(tmpdir(), 'cadre-bench-home-'));
  const pools: WarmPool[] = [];
  try {
    const settings = testSandboxSettings(home);
    const box = (s: SandboxSettings, warm: boolean): ShellSandbox => {
      const pool = warm ? new WarmPool() : undefined;
      if (pool) pools.push(pool);
      return { backend: 'bwrap', settings: s, policy: buildSandboxPolicy(s, root), pool };
    };
    const variants: { name: string; sandbox: ShellSandbox }[] = [
      { name: 'default policy (network on, PID namespace)', sandbox: box(settings, true) },
      { name: 'network off (--unshare-net)', sandbox: box({ ...settings, network: false }, true) },
      {
        name: 'no PID namespace (a fresh bwrap per call)',
        sandbox: box({ ...settings, pidNamespace: false }, true),
      },
      { name: 'fresh bwrap per call (grants, background jobs)', sandbox: box(settings, false) },
    ];
    const plain: number[] = [];
    const boxed: number[][] = variants.map(() => []);
    for (let i = 0; i < RUNS + WARMUP; i++) {
      const p = await timeCall(root);
      if (i >= WARMUP) plain.push(p);
      for (const [j, variant] of variants.entries()) {
        const t = await timeCall(root, variant.sandbox);
        if (i >= WARMUP) boxed[j].push(t);
        // The model's time between two calls, in which the next call's warm server starts (untimed).
        await new Promise((resolve) => setTimeout(resolve, MODEL_GAP_MS));
      }
    }
    return {
      runs: RUNS,
      plainMs: median(plain),
      // Each sandboxed run against the plain run of the same round: drift in the machine's load cancels.
      extraMs: variants.map((v, j) => ({ name: v.name, ms: median(boxed[j].map((t, i) => t - plain[i])) })),
    };
  } finally {
    for (const pool of pools) pool.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** The bench figures (target: the default policy under 5 ms). */
export function sandboxFigures(cost: SandboxCost): Figure[] {
  if (cost.unavailable)
    return [
      {
        key: 'sandbox.unavailable',
        name: 'sandbox: extra time of one bash call in bwrap',
        value: 0,
        unit: 'bool',
        note: 'no bwrap',
      },
    ];
  return [
    {
      key: 'sandbox.plain_bash_ms',
      name: `plain bash -c true spawned from Node, to exit (${cost.runs} runs)`,
      value: cost.plainMs,
      unit: 'ms',
    },
    ...cost.extraMs.map(
      (v, i): Figure => ({
        key: `sandbox.extra_ms.${i}`,
        name: `  sandbox: extra time of one bash call in bwrap, ${v.name}`,
        value: v.ms,
        unit: 'ms',
        target: i === 0 ? { max: 5 } : undefined,
      }),
    ),
  ];
}
