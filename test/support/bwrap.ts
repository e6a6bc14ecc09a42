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
