import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptRule } from '../src/provider/scripted/script.js';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, timedCadre } from './cli-run.js';

const WRITER = 'You are the fleet bench writer.';
const ITEMS = 6;
const CALL_MS = 500;

/** Six writers with disjoint claims; each writes its file after 0.5 s of model time, then answers after 0.5 s. */
function fleetScript(): ScriptRule[] {
  const writers: ScriptRule[] = Array.from({ length: ITEMS }, (_, i) => ({
    match: { system: WRITER, first_user: `write f${i}.txt` },
    turns: [
      {
        delay_ms: CALL_MS,
        tool_calls: [{ name: 'write', arguments: { path: `f${i}.txt`, content: `${i}\n` } }],
      },
      { delay_ms: CALL_MS, text: `wrote f${i}.txt` },
    ],
  }));
  const fleet = {
    name: 'fleet',
    arguments: {
      tasks: Array.from({ length: ITEMS }, (_, i) => ({
        id: `w${i}`,
        agent: 'writer',
        prompt: `write f${i}.txt`,
        write_paths: [`f${i}.txt`],
      })),
    },
  };
  return [...writers, { turns: [{ tool_calls: [fleet] }, { text: 'fleet done' }] }];
}

/**
 * SPEC 10 / issue 10: a 6-writer fleet with disjoint claims at the default caps (3 writers at a time), each
 * writer making two model calls of 0.5 s. Ideal children phase: two rounds of 1 s = 2 s.
 */
export async function benchFleet(runs = 3): Promise<{ childrenMs: number; idealMs: number; runs: number }> {
  const phases: number[] = [];
  for (let run = 0; run < runs; run++) {
    const server = await startScriptedServer({ rules: fleetScript() });
    const project = benchProject(server);
    try {
      mkdirSync(join(project.dir, '.cadre', 'agents'), { recursive: true });
      writeFileSync(
        join(project.dir, '.cadre', 'agents', 'writer.md'),
        `---\nsubagent_tools: readwrite\n---\n${WRITER}\n`,
      );
      const git = (...args: string[]) => execFileSync('git', args, { cwd: project.dir, stdio: 'ignore' });
      git('init', '-q');
      git('add', '-A');
      git('-c', 'user.name=bench', '-c', 'user.email=bench@x', 'commit', '-qm', 'bench');
      await timedCadre(project, ['-p', 'run the fleet', '--yes']);
      const children = server.requests.filter((r) => r.view.system.includes(WRITER));
      if (children.length !== ITEMS * 2) throw new Error(`fleet bench: ${children.length} writer requests`);
      const start = Math.min(...children.map((r) => r.startedAt));
      const end = Math.max(...children.map((r) => r.endedAt ?? r.startedAt));
      phases.push(end - start);
    } finally {
      project.cleanup();
      await server.close();
    }
  }
  return { childrenMs: median(phases), idealMs: 2 * 2 * CALL_MS, runs };
}
