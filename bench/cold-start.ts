import { startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, timedCadre, timedNode } from './cli-run.js';

export interface ColdStartResult {
  runs: number;
  /** Spawn of `node bin/cadre.js -p hi` to the arrival of its first model request. */
  medianMs: number;
  /** Spawn to exit of `node -e ''`. */
  nodeBaselineMs: number;
}

/** SPEC 18: `cadre -p` cold start to the first model request (target < 300 ms median). */
export async function benchColdStart(runs = 12): Promise<ColdStartResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'hi' }] }] });
  const project = benchProject(server);
  try {
    // One unmeasured run creates the session database, as on any machine that has run cadre before.
    await timedCadre(project, ['-p', 'hi']);
    const startups: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = server.requests.length;
      const run = await timedCadre(project, ['-p', 'hi']);
      const first = server.requests[before];
      if (!first) throw new Error('cold start: cadre exited without calling the model');
      startups.push(first.startedAt - run.spawnedAt);
    }
    const baseline: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = await timedNode(['-e', ''], project.dir, process.env);
      baseline.push(run.exitedAt - run.spawnedAt);
    }
    return { runs, medianMs: median(startups), nodeBaselineMs: median(baseline) };
  } finally {
    project.cleanup();
    await server.close();
  }
}
