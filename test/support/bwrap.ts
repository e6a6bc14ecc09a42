import { readdirSync, readFileSync } from 'node:fs';
import { runBwrapProbe } from '../../src/sandbox/probe.js';

export { testSandboxSettings } from './sandbox-settings.js';

const probe = runBwrapProbe();

/**
 * Tests that need a working bwrap run wherever it works, and always in CI (`.ci/run` installs it), where
 * its absence fails them instead of skipping them. Skipped only on a developer machine without it.
 */
export const bwrapTestsRun = probe.ok || process.env.CI !== undefined;

/** For a `beforeAll`: fails the suite, naming why, when bwrap does not work. */
export function requireBwrap(): void {
  if (!probe.ok)
    throw new Error(`these tests need a working bwrap (.ci/run installs bubblewrap): ${probe.error}`);
}

/** Host processes whose command line holds `marker` (the host sees every PID namespace's processes). */
export function hostProcessesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
