import type { ScriptTurn } from '../src/provider/scripted/script.js';
import { type RecordedRequest, startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, timedCadre } from './cli-run.js';

export interface ToolLoopResult {
  runs: number;
  calls: number;
  modelDelayMs: number;
  /** (loop wall time − model time) / calls: first request's arrival to the last reply's end. */
  overheadPerCallMs: number;
  /** The same with the whole process (spawn to exit) as wall time, i.e. start-up spread over the calls. */
  processOverheadPerCallMs: number;
}

function modelTimeMs(requests: readonly RecordedRequest[]): number {
  return requests.reduce((sum, r) => sum + ((r.endedAt ?? r.startedAt) - r.startedAt), 0);
}

/** SPEC 18: harness overhead per tool round trip over a `calls`-call `read` loop (target < 10 ms median). */
export async function benchToolLoop(runs = 5, calls = 20, modelDelayMs = 20): Promise<ToolLoopResult> {
  const turns: ScriptTurn[] = [
    ...Array.from({ length: calls }, () => ({
      delay_ms: modelDelayMs,
      tool_calls: [{ name: 'read', arguments: { path: 'small.txt' } }],
    })),
    { delay_ms: modelDelayMs, text: 'done' },
  ];
  const server = await startScriptedServer({ rules: [{ turns }] });
  const project = benchProject(server);
  try {
    const loop: number[] = [];
    const whole: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = server.requests.length;
      const run = await timedCadre(project, ['-p', 'read small.txt over and over']);
      const requests = server.requests.slice(before);
      if (requests.length !== calls + 1)
        throw new Error(`tool loop: expected ${calls + 1} model requests, saw ${requests.length}`);
      const model = modelTimeMs(requests);
      const last = requests[requests.length - 1];
      loop.push(((last.endedAt ?? last.startedAt) - requests[0].startedAt - model) / calls);
      whole.push((run.exitedAt - run.spawnedAt - model) / calls);
    }
    return {
      runs,
      calls,
      modelDelayMs,
      overheadPerCallMs: median(loop),
      processOverheadPerCallMs: median(whole),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
