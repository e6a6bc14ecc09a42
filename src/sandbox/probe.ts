import { spawnSync } from 'node:child_process';

export type ProbeResult = { ok: true } | { ok: false; error: string };

/**
 * The flags every sandboxed command uses: bwrap can be installed and still fail where user namespaces,
 * mounting /proc or a new network namespace are not permitted.
 */
const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--unshare-pid',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  '--unshare-net',
  '--die-with-parent',
  'true',
];

/** Runs bubblewrap once to see whether it works here; the error is what bwrap (or the system) said. */
export function runBwrapProbe(file = 'bwrap'): ProbeResult {
  const run = spawnSync(file, PROBE_ARGS, { encoding: 'utf8', timeout: 10_000 });
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error:
        code === 'ENOENT'
          ? `${file} is not installed (Debian/Ubuntu: apt install bubblewrap)`
          : run.error.message,
    };
  }
  if (run.status !== 0) {
    const said = `${run.stderr}`.trim().split('\n').slice(-3).join(' ');
    return { ok: false, error: `${file} failed (${said || `exit ${run.status ?? run.signal}`})` };
  }
  return { ok: true };
}

let cached: ProbeResult | undefined;

/** The probe, run once per process. */
export function bwrapProbe(): ProbeResult {
  cached ??= runBwrapProbe();
  return cached;
}

/** `sandbox-exec` ships with macOS; it is deprecated but still present. */
export function sandboxExecProbe(): ProbeResult {
  const run = spawnSync('sandbox-exec', ['-p', '(version 1)(allow default)', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (run.error || run.status !== 0)
    return { ok: false, error: `sandbox-exec failed (${run.error?.message ?? `${run.stderr}`.trim()})` };
  return { ok: true };
}
