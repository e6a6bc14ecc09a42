import { spawn, spawnSync } from 'node:child_process';
import { forget, type ProbeCache, probeCacheFor, remember, remembered } from './probe-cache.js';

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

const PROBE_TIMEOUT_MS = 10_000;

interface ProbeRun {
  error?: Error;
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function probeResult(file: string, run: ProbeRun): ProbeResult {
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
    const said = run.stderr.trim().split('\n').slice(-3).join(' ');
    return { ok: false, error: `${file} failed (${said || `exit ${run.status ?? run.signal}`})` };
  }
  return { ok: true };
}

/** Runs bubblewrap once to see whether it works here; the error is what bwrap (or the system) said. */
export function runBwrapProbe(file = 'bwrap'): ProbeResult {
  const run = spawnSync(file, PROBE_ARGS, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
  return probeResult(file, { ...run, stderr: `${run.stderr}` });
}

/** The same probe without blocking the event loop. */
export function runBwrapProbeAsync(file = 'bwrap'): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const child = spawn(file, PROBE_ARGS, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let error: Error | undefined;
    const timer = setTimeout(() => {
      error = Object.assign(new Error(`${file} ETIMEDOUT`), { code: 'ETIMEDOUT' });
      child.kill('SIGTERM');
    }, PROBE_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (spawnError) => {
      clearTimeout(timer);
      resolve(probeResult(file, { error: spawnError, status: null, signal: null, stderr }));
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve(probeResult(file, { error, status, signal, stderr }));
    });
  });
}

let cached: ProbeResult | undefined;
let pending: Promise<ProbeResult> | undefined;

/** Remembers a success for the next start (probe-cache.ts). */
function keep(result: ProbeResult, cache: ProbeCache | undefined): ProbeResult {
  if (result.ok && cache) remember(cache);
  return result;
}

/** The probe, run once per process, and not at all while a remembered success is valid. */
export function bwrapProbe(): ProbeResult {
  if (cached) return cached;
  const cache = probeCacheFor();
  cached = cache && remembered(cache) ? { ok: true } : keep(runBwrapProbe(), cache);
  return cached;
}

/**
 * Starts the probe in the background, so it runs while the rest of cadre loads; `bwrapProbe` then finds
 * its result (issue 17: the probe was a blocking step before the first model request).
 */
export function bwrapProbeAhead(): Promise<ProbeResult> {
  if (cached) return Promise.resolve(cached);
  const cache = probeCacheFor();
  if (cache && remembered(cache)) {
    cached = { ok: true };
    return Promise.resolve(cached);
  }
  pending ??= runBwrapProbeAsync().then((result) => {
    cached ??= keep(result, cache);
    return cached;
  });
  return pending;
}

/** bwrap failed although the probe said it works (a remembered success gone stale): probe again next time. */
export function forgetBwrapProbe(): void {
  forget(probeCacheFor());
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
