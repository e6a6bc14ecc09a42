import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, type Spread, spread, timedCadre, timedNode } from './cli-run.js';

export interface ColdStartResult {
  runs: number;
  /** Spawn of `node bin/cadre.js -p hi` to the arrival of its first model request. */
  firstRequestMs: Spread;
  /** Spawn of `node bin/cadre.js -p hi` to its exit (the answer printed, the store closed). */
  exitMs: Spread;
  /** Spawn to exit of `node -e 0`, in the same run. */
  nodeMs: Spread;
  /**
   * Spawn to exit of `cadre -p hi` without a code cache (the first run after an upgrade, which compiles
   * everything and writes the cache as it exits), interleaved with the others.
   */
  uncachedExitMs: Spread;
  uncachedExitRatio: number;
  /** Each run's cadre wall time over the `node -e 0` run next to it (median of the ratios). */
  firstRequestRatio: number;
  exitRatio: number;
  /** Peak resident memory of `cadre -p hi` (MiB). */
  peakRssMb: number;
}

/**
 * `cadre -p hi` cold, a fresh process each time (SPEC 18: under 300 ms to the first model request; issue 17:
 * ≤ 2.5× `node -e 0`). The node runs are interleaved with cadre's so a busy machine slows both alike.
 */
export async function benchColdStart(runs = 12): Promise<ColdStartResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'hi' }] }] });
  const project = benchProject(server);
  try {
    // One unmeasured run creates the session database and the code cache, as on any machine that has run
    // cadre before.
    await timedCadre(project, ['-p', 'hi']);
    const firstRequest: number[] = [];
    const exit: number[] = [];
    const node: number[] = [];
    const firstRatios: number[] = [];
    const exitRatios: number[] = [];
    const uncached: number[] = [];
    const uncachedRatios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const base = await timedNode(['-e', '0'], project.dir, process.env);
      const before = server.requests.length;
      const run = await timedCadre(project, ['-p', 'hi']);
      const first = server.requests[before];
      if (!first) throw new Error('cold start: cadre exited without calling the model');
      const nodeMs = base.exitedAt - base.spawnedAt;
      node.push(nodeMs);
      firstRequest.push(first.startedAt - run.spawnedAt);
      exit.push(run.exitedAt - run.spawnedAt);
      firstRatios.push((first.startedAt - run.spawnedAt) / nodeMs);
      exitRatios.push((run.exitedAt - run.spawnedAt) / nodeMs);
      // Only the code cache goes: the sandbox probe's result stays remembered, as after an upgrade.
      rmSync(join(project.cacheHome, 'cadre', 'code-cache'), { recursive: true, force: true });
      const fresh = await timedCadre(project, ['-p', 'hi']);
      uncached.push(fresh.exitedAt - fresh.spawnedAt);
      uncachedRatios.push((fresh.exitedAt - fresh.spawnedAt) / nodeMs);
    }
    const rss: number[] = [];
    for (let i = 0; i < 3; i++)
      rss.push((await timedCadre(project, ['-p', 'hi'], { rss: true })).peakRssMb ?? 0);
    return {
      runs,
      firstRequestMs: spread(firstRequest),
      exitMs: spread(exit),
      nodeMs: spread(node),
      uncachedExitMs: spread(uncached),
      uncachedExitRatio: median(uncachedRatios),
      firstRequestRatio: median(firstRatios),
      exitRatio: median(exitRatios),
      peakRssMb: median(rss),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
