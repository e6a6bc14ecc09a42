import { type HostFs, hostFs } from './bwrap.js';
import { isScrubbed } from './env.js';
import type { SandboxBackend, ShellSandbox } from './sandbox.js';

/** What `cadre sandbox status` reports: the sandbox a run here would put every command in, as plain data. */
export interface SandboxStatus {
  backend: SandboxBackend;
  /** Why commands run unconfined (or why a run would refuse to start), when they do. */
  reason?: string;
  root: string;
  /** Bound writable; `exists: false` ones are skipped until they exist. */
  writable: { path: string; exists: boolean }[];
  readOnly: { path: string; exists: boolean }[];
  hidden: { path: string; exists: boolean }[];
  privateTmp: boolean;
  network: boolean;
  pidNamespace: boolean;
  env: {
    patterns: string[];
    names: string[];
    allow: string[];
    /** Variables set in this environment that a command would not see. */
    scrubbedNow: string[];
  };
}

export function sandboxStatus(
  sandbox: ShellSandbox,
  env: NodeJS.ProcessEnv,
  fs: HostFs = hostFs,
): SandboxStatus {
  const { policy } = sandbox;
  const entries = (paths: readonly string[]) =>
    paths.map((path) => ({ path, exists: fs.kind(path) !== undefined }));
  return {
    backend: sandbox.backend,
    ...(sandbox.unconfinedReason ? { reason: sandbox.unconfinedReason } : {}),
    root: policy.root,
    writable: entries(policy.writable),
    readOnly: entries(policy.readOnly),
    hidden: entries(policy.hidden),
    privateTmp: policy.privateTmp,
    network: policy.network,
    pidNamespace: policy.pidNamespace,
    env: {
      patterns: policy.env.patterns,
      names: policy.env.names,
      allow: policy.env.allow,
      scrubbedNow: Object.keys(env)
        .filter((name) => env[name] !== undefined && isScrubbed(name, policy.env))
        .sort(),
    },
  };
}

const BACKEND_LINES: Record<SandboxBackend, string> = {
  bwrap: 'bwrap (bubblewrap): every bash command and background job runs inside it',
  'sandbox-exec': 'sandbox-exec (macOS, best effort, untested in CI)',
  none: 'none: commands run unconfined and the permission analyser alone decides',
};

/** The human-readable report. */
export function formatSandboxStatus(status: SandboxStatus): string {
  const list = (items: { path: string; exists: boolean }[]) =>
    items.length === 0
      ? ['  (none)']
      : items.map((i) => `  ${i.path}${i.exists ? '' : ' (absent: skipped until it exists)'}`);
  const confined = status.backend !== 'none';
  const lines = [
    `sandbox: ${BACKEND_LINES[status.backend]}`,
    ...(status.reason ? [`  why: ${status.reason}`] : []),
    `root: ${status.root}`,
    'writable:',
    ...list(status.writable),
    ...(status.privateTmp && confined ? ['  /tmp (private to each command)'] : []),
    'read-only inside writable places:',
    ...list(status.readOnly),
    'hidden (emptied):',
    ...list(status.hidden),
    `network: ${status.network ? 'on' : 'off'}${confined ? '' : ' (not enforced without a sandbox)'}`,
    `PID namespace: ${status.pidNamespace && status.backend === 'bwrap' ? 'yes (& and nohup children end with each command)' : 'no'}`,
    'environment scrubbed:',
    `  names matching ${status.env.patterns.join(', ')}`,
    `  names ${status.env.names.join(', ')}`,
    `  allowed through (sandbox_env_allow): ${status.env.allow.join(', ') || '(none)'}`,
    `  set here and scrubbed: ${status.env.scrubbedNow.join(', ') || '(none)'}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The `--json` document (snake_case, like the other JSON outputs). */
export function sandboxStatusJson(status: SandboxStatus): Record<string, unknown> {
  return {
    backend: status.backend,
    reason: status.reason ?? null,
    root: status.root,
    writable: status.writable,
    read_only: status.readOnly,
    hidden: status.hidden,
    private_tmp: status.privateTmp,
    network: status.network,
    pid_namespace: status.pidNamespace && status.backend === 'bwrap',
    env: {
      scrubbed_patterns: status.env.patterns,
      scrubbed_names: status.env.names,
      allowed: status.env.allow,
      scrubbed_now: status.env.scrubbedNow,
    },
  };
}
