import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptToolCall, ScriptTurn } from '../src/provider/scripted/script.js';
import { type RecordedRequest, startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, timedCadre } from './cli-run.js';

/** The first model answer takes this long, as a real one does; later answers are instant (issue 17). */
export const FIRST_ANSWER_MS = 500;

/**
 * The realistic mix, in turn: a shell command through the sandbox, a read, a search and an edit (which
 * flips a word back and forth so every edit finds its text).
 */
export function mixedCall(i: number): ScriptToolCall {
  switch (i % 4) {
    case 0:
      return { name: 'bash', arguments: { command: 'ls -la && wc -l notes.txt' } };
    case 1:
      return { name: 'read', arguments: { path: 'notes.txt' } };
    case 2:
      return { name: 'grep', arguments: { pattern: 'alpha|beta', path: '.' } };
    default: {
      const [from, to] = Math.floor(i / 4) % 2 === 0 ? ['alpha', 'beta'] : ['beta', 'alpha'];
      return { name: 'edit', arguments: { path: 'notes.txt', old_string: from, new_string: to } };
    }
  }
}

/** `calls` turns of one tool call each, then an answer; only the first answer is slow. */
export function mixedScript(calls: number): ScriptTurn[] {
  return [
    ...Array.from({ length: calls }, (_, i) => ({
      ...(i === 0 ? { delay_ms: FIRST_ANSWER_MS } : {}),
      tool_calls: [mixedCall(i)],
    })),
    { text: 'done' },
  ];
}

export const NOTES = 'line one\nthe word alpha\nline three\n';

/** Tool results that say the call failed: a bench whose calls fail measures the wrong thing. */
export function failedResults(requests: readonly RecordedRequest[]): string[] {
  const last = requests[requests.length - 1];
  return last.view.messages
    .filter((m) => m.role === 'tool' && /^(error|Error)|refused|denied|not allowed/.test(m.text))
    .map((m) => m.text.slice(0, 200));
}

export interface TurnsResult {
  runs: number;
  turns: number;
  /** Mean of (next request's arrival − this reply's end) over the session: tool run plus harness. */
  meanOverheadMs: number;
  /** The slowest such gap (median over runs), and which call it followed. */
  slowestTurnMs: number;
  slowestTool: string;
  /** Peak resident memory over the session (MiB). */
  peakRssMb: number;
}

function gaps(requests: readonly RecordedRequest[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < requests.length; i++)
    out.push(requests[i].startedAt - (requests[i - 1].endedAt ?? requests[i - 1].startedAt));
  return out;
}

/**
 * Issue 17: a 100-turn session of bash, read, grep and edit calls; turn overhead and the slowest turn
 * (bench/turns-detail.ts breaks the same session down by tool).
 */
export async function benchTurns(runs = 3, turns = 100): Promise<TurnsResult> {
  const server = await startScriptedServer({ rules: [{ turns: mixedScript(turns) }] });
  const project = benchProject(server);
  try {
    const means: number[] = [];
    const slowest: number[] = [];
    const slowTools = new Map<string, number>();
    const rss: number[] = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(join(project.dir, 'notes.txt'), NOTES);
      const before = server.requests.length;
      const run = await timedCadre(
        project,
        ['-p', 'work on notes.txt', '--yes', '--max-turns', String(turns + 1)],
        { rss: true },
      );
      const requests = server.requests.slice(before);
      if (requests.length !== turns + 1)
        throw new Error(`turns: expected ${turns + 1} model requests, saw ${requests.length}`);
      const failed = failedResults(requests);
      if (failed.length > 0) throw new Error(`turns: ${failed.length} tool calls failed: ${failed[0]}`);
      const g = gaps(requests);
      means.push(g.reduce((a, b) => a + b, 0) / g.length);
      const worst = Math.max(...g);
      slowest.push(worst);
      const tool = mixedCall(g.indexOf(worst)).name;
      slowTools.set(tool, (slowTools.get(tool) ?? 0) + 1);
      rss.push(run.peakRssMb ?? 0);
    }
    const slowestTool = [...slowTools].sort((a, b) => b[1] - a[1])[0][0];
    return {
      runs,
      turns,
      meanOverheadMs: median(means),
      slowestTurnMs: median(slowest),
      slowestTool,
      peakRssMb: median(rss),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
