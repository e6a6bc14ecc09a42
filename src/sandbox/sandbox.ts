/**
 * The OS sandbox around every shell command (SPEC 2.2 `sandbox`, 9). Use:
 *
 *   const { sandbox, warning } = openSandbox(settings, root, mode);   // once per run; throws ConfigError
 *   ctx.sandbox = sandbox;                                             // ToolContext: bash + background jobs
 *   const writer = sandboxAt(sandbox, worktree);                      // an isolated writer's sandbox
 *   isConfining(writer)                                               // false: no worktree writers (SPEC 9)
 *   shellSpawn(sandbox, command, cwd, grants)                         // { file, args, env } to spawn
 *   warmSpec(sandbox, grants)                                          // a warm server's spec, or undefined
 *   closeSandbox(sandbox)                                              // the session is over: servers stop
 *   readOnlyHint(sandbox, output, cwd)                                // line for a failed command's output
 *
 * The policy (policy.ts) is plain data built by one function from the settings and a root; the backend
 * (bwrap.ts on Linux, seatbelt.ts on macOS) turns it into a spawn. `grants` are outside paths a rule or an
 * approval allowed for one call: bound writable for that call only.
 *
 * With bwrap, calls without grants run on warm servers (warm-pool.ts): a bwrap started ahead of the call
 * for its exact argument list and environment, running that one call and killing what it left behind.
 */
import { join } from 'node:path';
import { ConfigError } from '../config/load.js';
import { bwrapArgs, bwrapSpawn, prepareHost } from './bwrap.js';
import { scrubEnv } from './env.js';
import { gitStoresOf } from './git.js';
import {
  buildSandboxPolicy,
  type PolicyExtras,
  type SandboxPolicy,
  type SandboxSettings,
  type WriteGrant,
} from './policy.js';
import {
  bwrapProbe,
  bwrapProbeAhead,
  forgetBwrapProbe,
  type ProbeResult,
  sandboxExecProbe,
} from './probe.js';
import { seatbeltSpawn } from './seatbelt.js';
import { type ServerSpec, WarmPool } from './warm-pool.js';

export type SandboxMode = 'auto' | 'bwrap' | 'none';
export type SandboxBackend = 'bwrap' | 'sandbox-exec' | 'none';

export interface ShellSandbox {
  backend: SandboxBackend;
  /** Why commands run unconfined, when they do. */
  unconfinedReason?: string;
  settings: SandboxSettings;
  policy: SandboxPolicy;
  /** The session's warm servers (bwrap only); shared by the sandboxes `sandboxAt` derives. */
  pool?: WarmPool;
}

export interface ShellSpawn {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface BackendProbes {
  platform: NodeJS.Platform;
  bwrap: () => ProbeResult;
  sandboxExec: () => ProbeResult;
}

const DEFAULT_PROBES: BackendProbes = {
  platform: process.platform,
  bwrap: bwrapProbe,
  sandboxExec: sandboxExecProbe,
};

/**
 * Which backend confines commands. `auto` falls back to none with a reason; `bwrap` that does not work is a
 * configuration the run cannot honour (ConfigError, exit 2).
 */
export function chooseBackend(
  mode: SandboxMode,
  probes: BackendProbes = DEFAULT_PROBES,
): { backend: SandboxBackend; reason?: string } {
  if (mode === 'none') return { backend: 'none', reason: 'the configuration sets "sandbox": "none"' };
  if (probes.platform === 'linux') {
    const probe = probes.bwrap();
    if (probe.ok) return { backend: 'bwrap' };
    if (mode === 'bwrap')
      throw new ConfigError(
        `"sandbox": "bwrap" is configured but bubblewrap does not work here: ${probe.error}`,
      );
    return { backend: 'none', reason: `no working bubblewrap: ${probe.error}` };
  }
  if (mode === 'bwrap')
    throw new ConfigError(
      `"sandbox": "bwrap" is configured but bubblewrap is Linux-only (platform ${probes.platform})`,
    );
  if (probes.platform === 'darwin') {
    const probe = probes.sandboxExec();
    if (probe.ok) return { backend: 'sandbox-exec' };
    return { backend: 'none', reason: probe.error };
  }
  return { backend: 'none', reason: `no sandbox backend for platform ${probes.platform}` };
}

/**
 * Probes the backend `mode` will need in the background; awaiting it before `openSandbox` lets a command
 * load its modules meanwhile instead of waiting for the probe on the way to the first model request.
 */
export async function probeSandboxAhead(mode: SandboxMode, platform = process.platform): Promise<void> {
  if (mode !== 'none' && platform === 'linux') await bwrapProbeAhead();
}

/**
 * The project's git stores; without one yet, where `git init` would make it, so hooks and config made
 * mid-session are read-only from the next command on (missing paths are skipped until they exist).
 */
function projectGitStores(root: string): string[] {
  const stores = gitStoresOf(root);
  return stores.length > 0 ? stores : [join(root, '.git')];
}

/** The run's sandbox rooted at `root`, and the one start-up warning when commands will run unconfined. */
export function openSandbox(
  settings: SandboxSettings,
  root: string,
  mode: SandboxMode,
  probes?: BackendProbes,
): { sandbox: ShellSandbox; warning?: string } {
  const { backend, reason } = chooseBackend(mode, probes);
  const sandbox: ShellSandbox = {
    backend,
    unconfinedReason: reason,
    settings,
    policy: buildSandboxPolicy(settings, root, { gitStores: projectGitStores(root) }),
    // A server bwrap refuses means the probe's success no longer holds: the next start probes again.
    pool: backend === 'bwrap' ? new WarmPool({ onStartFailure: forgetBwrapProbe }) : undefined,
  };
  const warning = reason
    ? `commands run without an OS sandbox (${reason}); the permission analyser alone decides what runs`
    : undefined;
  return { sandbox, warning };
}

/** The same sandbox rooted elsewhere (an isolated writer's worktree), with that root's git store. */
export function sandboxAt(sandbox: ShellSandbox, root: string, extras: PolicyExtras = {}): ShellSandbox {
  const gitStores = [...gitStoresOf(root), ...(extras.gitStores ?? [])];
  return { ...sandbox, policy: buildSandboxPolicy(sandbox.settings, root, { ...extras, gitStores }) };
}

/** Whether commands are really confined (an isolated writer requires it, SPEC 9). */
export function isConfining(sandbox: ShellSandbox | undefined): boolean {
  return sandbox !== undefined && sandbox.backend !== 'none';
}

/** How to start `bash -c command` in `cwd` under the sandbox; without one, plain bash. */
export function shellSpawn(
  sandbox: ShellSandbox | undefined,
  command: string,
  cwd: string,
  grants: readonly WriteGrant[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ShellSpawn {
  if (!sandbox) return { file: 'bash', args: ['-c', command], env: { ...env } };
  const { policy } = sandbox;
  const scrubbed = { ...scrubEnv(env, policy.env), ...policy.setEnv };
  switch (sandbox.backend) {
    case 'bwrap': {
      prepareHost(policy, grants);
      return { ...bwrapSpawn(policy, command, cwd, grants), env: bwrapEnv(policy, scrubbed) };
    }
    case 'sandbox-exec':
      prepareHost(policy, grants);
      return { ...seatbeltSpawn(policy, command, grants), env: scrubbed };
    case 'none':
      return { file: 'bash', args: ['-c', command], env: scrubbed };
  }
}

function bwrapEnv(policy: SandboxPolicy, scrubbed: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // The host's temp dir is not inside the private /tmp.
  return policy.privateTmp ? { ...scrubbed, TMPDIR: '/tmp' } : scrubbed;
}

/**
 * The warm server a call can run on, or undefined for a per-call spawn: only bwrap with its PID namespace
 * (the server kills what each call leaves in it) and only without grants (they are for one call).
 */
export function warmSpec(
  sandbox: ShellSandbox | undefined,
  grants: readonly WriteGrant[] = [],
  env: NodeJS.ProcessEnv = process.env,
): (ServerSpec & { pool: WarmPool }) | undefined {
  if (!sandbox?.pool || sandbox.backend !== 'bwrap' || grants.length > 0) return undefined;
  const { policy } = sandbox;
  if (!policy.pidNamespace) return undefined;
  prepareHost(policy, []);
  const scrubbed = { ...scrubEnv(env, policy.env), ...policy.setEnv };
  return {
    pool: sandbox.pool,
    bwrapArgs: bwrapArgs(policy),
    env: bwrapEnv(policy, scrubbed),
    root: policy.root,
    policy: JSON.stringify(policy),
  };
}

/** The session is over: its warm servers stop (they also die with cadre, whatever ends it). */
export function closeSandbox(sandbox: ShellSandbox | undefined): void {
  sandbox?.pool?.close();
}
