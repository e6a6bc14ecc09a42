import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSandboxPolicy, type SandboxSettings } from '../src/sandbox/policy.js';
import { runBwrapProbe } from '../src/sandbox/probe.js';
import { type ShellSandbox, shellSpawn } from '../src/sandbox/sandbox.js';
import type { Figure } from './report.js';

const RUNS = 40;

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

function timeSpawn(spec: { file: string; args: string[]; env: NodeJS.ProcessEnv }, cwd: string): number {
  const start = performance.now();
  const run = spawnSync(spec.file, spec.args, { cwd, env: spec.env, stdio: 'ignore' });
  const elapsed = performance.now() - start;
  if (run.status !== 0) throw new Error(`bench: ${spec.file} ${spec.args.slice(-3).join(' ')} failed`);
  return elapsed;
}

/**
 * Issue 15: what the sandbox costs one `bash` call: `bash -c true` spawned as the bash tool spawns it
 * (policy, host preparation, scrubbed env, bwrap), against plain `bash -c true`; the default policy, and
 * with the optional network and PID-namespace flags flipped. Runs interleaved so drift hits all alike.
 */
export async function benchSandbox(): Promise<SandboxCost> {
  const probe = runBwrapProbe();
  if (!probe.ok) return { unavailable: probe.error, runs: 0, plainMs: 0, extraMs: [] };
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-sandbox-'));
  const home = mkdtempSync(join(tmpdir(), 'cadre-bench-home-'));
  try {
    const settings: SandboxSettings = {
      home,
      configDir: join(home, '.config', 'cadre'),
      readOnly: false,
      network: true,
      pidNamespace: true,
      hide: [],
      envAllow: [],
      keyEnvNames: [],
    };
    const variants: { name: string; settings: SandboxSettings }[] = [
      { name: 'default policy (network on, PID namespace)', settings },
      { name: 'network off (--unshare-net)', settings: { ...settings, network: false } },
      { name: 'no PID namespace', settings: { ...settings, pidNamespace: false } },
    ];
    const sandboxes: ShellSandbox[] = variants.map((v) => ({
      backend: 'bwrap',
      settings: v.settings,
      policy: buildSandboxPolicy(v.settings, root),
    }));
    const plain: number[] = [];
    const boxed: number[][] = variants.map(() => []);
    for (let i = 0; i < RUNS + 3; i++) {
      const warm = i < 3;
      const p = timeSpawn(shellSpawn(undefined, 'true', root), root);
      if (!warm) plain.push(p);
      sandboxes.forEach((sandbox, j) => {
        const t = timeSpawn(shellSpawn(sandbox, 'true', root), root);
        if (!warm) boxed[j].push(t);
      });
    }
    const plainMs = median(plain);
    return {
      runs: RUNS,
      plainMs,
      // Each sandboxed run against the plain run of the same round: drift in the machine's load cancels.
      extraMs: variants.map((v, j) => ({ name: v.name, ms: median(boxed[j].map((t, i) => t - plain[i])) })),
    };
  } finally {
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
      name: `plain bash -c true, spawn to exit (${cost.runs} runs)`,
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
