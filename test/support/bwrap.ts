import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxSettings } from '../../src/sandbox/policy.js';
import { runBwrapProbe } from '../../src/sandbox/probe.js';

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

/** Sandbox settings for a test: the defaults, `home` standing in for the user's, one provider key name. */
export function testSandboxSettings(home: string): SandboxSettings {
  return {
    home,
    configDir: join(home, '.config', 'cadre'),
    readOnly: false,
    network: true,
    pidNamespace: true,
    hide: [],
    envAllow: [],
    keyEnvNames: ['MY_MODEL_KEY'],
  };
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
