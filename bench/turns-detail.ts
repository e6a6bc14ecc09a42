/**
 * The 100-turn session of turns.ts, broken down by tool: which turns the mean and the slowest turn come
 * from. Not part of `npm run bench`; run it on its own:
 *
 *   node --import tsx --import ./bench/text-hooks.mjs bench/turns-detail.ts [runs]
 *
 * Each run prints its mean, its slowest gap and the first gaps; then each tool's gaps over all runs
 * (median, mean, max; the first turn, whose model answer takes 500 ms, counted apart).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, timedCadre } from './cli-run.js';
import { failedResults, mixedCall, mixedScript, NOTES } from './turns.js';

const TURNS = 100;
const runs = Number(process.argv[2] ?? 3);
const server = await startScriptedServer({ rules: [{ turns: mixedScript(TURNS) }] });
const project = benchProject(server);
const byTool = new Map<string, number[]>();
const firsts: number[] = [];
try {
  for (let run = 0; run < runs; run++) {
    writeFileSync(join(project.dir, 'notes.txt'), NOTES);
    const before = server.requests.length;
    await timedCadre(project, ['-p', 'work on notes.txt', '--yes', '--max-turns', String(TURNS + 1)]);
    const requests = server.requests.slice(before);
    const failed = failedResults(requests);
    if (failed.length > 0) throw new Error(`${failed.length} tool calls failed: ${failed[0]}`);
    const gaps = requests
      .slice(1)
      .map((request, i) => request.startedAt - (requests[i].endedAt ?? requests[i].startedAt));
    gaps.forEach((gap, i) => {
      if (i === 0) firsts.push(gap);
      else byTool.set(mixedCall(i).name, [...(byTool.get(mixedCall(i).name) ?? []), gap]);
    });
    const worst = Math.max(...gaps);
    const at = gaps.indexOf(worst);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    console.log(
      `run ${run + 1}: mean ${mean.toFixed(1)} ms, slowest ${worst.toFixed(1)} ms (turn ${at + 1}, ${mixedCall(at).name}); first gaps ${gaps
        .slice(0, 8)
        .map((gap) => gap.toFixed(0))
        .join(' ')}`,
    );
  }
  const line = (name: string, gaps: number[]) =>
    `${name.padEnd(12)} median ${median(gaps).toFixed(1).padStart(6)}  mean ${(gaps.reduce((a, b) => a + b, 0) / gaps.length).toFixed(1).padStart(6)}  max ${Math.max(
      ...gaps,
    )
      .toFixed(1)
      .padStart(6)} ms`;
  console.log(line('first (bash)', firsts));
  for (const [tool, gaps] of byTool) console.log(line(tool, gaps));
} finally {
  project.cleanup();
  await server.close();
}
