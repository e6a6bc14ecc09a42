import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, timedCadre } from './cli-run.js';
import { mixedCall, mixedScript, NOTES } from './turns.js';

const turns = Number(process.argv[2] ?? 100);
const server = await startScriptedServer({ rules: [{ turns: mixedScript(turns) }] });
const project = benchProject(server);
writeFileSync(join(project.dir, 'notes.txt'), NOTES);
const run = await timedCadre(project, ['-p', 'x', '--yes', '--max-turns', String(turns + 1)], { rss: true });
const r = server.requests;
const g = r.slice(1).map((q, i) => [mixedCall(i).name, Math.round(q.startedAt - (r[i].endedAt ?? 0))]);
console.log(
  'first request',
  Math.round(r[0].startedAt - run.spawnedAt),
  'exit after last',
  Math.round(run.exitedAt - (r.at(-1)?.endedAt ?? 0)),
  'rss',
  run.peakRssMb,
);
console.log(JSON.stringify(g.slice(0, 12)), 'mean', g.reduce((a, b) => a + (b[1] as number), 0) / g.length);
console.log(JSON.stringify([...g].sort((a, b) => (b[1] as number) - (a[1] as number)).slice(0, 10)));
project.cleanup();
await server.close();
