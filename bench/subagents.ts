import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptRule } from '../src/provider/scripted/script.js';
import { type RecordedRequest, startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, CADRE_BIN, median } from './cli-run.js';

const WORKER = 'You are the bench worker.';

/** A main agent that dispatches `count` background workers at once, each answering after `delayMs`. */
function fanOutScript(count: number, delayMs: number, workerTurns = 1): ScriptRule[] {
  return [
    {
      match: { system: WORKER },
      turns: [
        ...Array.from({ length: workerTurns - 1 }, () => ({
          delay_ms: delayMs,
          tool_calls: [{ name: 'read', arguments: { path: 'small.txt' } }],
        })),
        { delay_ms: delayMs, text: 'worker done' },
      ],
    },
    {
      match: { last_user: 'Background task' },
      turns: Array.from({ length: count + 1 }, () => ({ text: 'all done' })),
    },
    { match: { last_user: 'Coordinator batch is complete' }, turns: [{ text: 'all done' }] },
    {
      turns: [
        {
          tool_calls: Array.from({ length: count }, (_, i) => ({
            name: 'task',
            arguments: { agent: 'worker', prompt: `job ${i}`, background: true },
          })),
        },
        { text: 'waiting' },
      ],
    },
  ];
}

interface FanOutRun {
  children: RecordedRequest[];
  peakRssMb: number;
}

/** Runs one fan-out and samples the cadre process's resident memory while it runs (Linux /proc). */
async function fanOut(
  count: number,
  delayMs: number,
  concurrency: number,
  workerTurns = 1,
  coordinated = false,
): Promise<FanOutRun> {
  const server = await startScriptedServer({ rules: fanOutScript(count, delayMs, workerTurns) });
  const project = benchProject(server);
  try {
    const configPath = join(project.dir, '.cadre', 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    const strategy = coordinated ? { subagent_dispatch_strategy: 'full' } : {};
    writeFileSync(
      configPath,
      JSON.stringify({ ...config, ...strategy, max_subagent_concurrency: concurrency }),
    );
    mkdirSync(join(project.dir, '.cadre', 'agents'));
    writeFileSync(
      join(project.dir, '.cadre', 'agents', 'worker.md'),
      `---\nsubagent_tools: readonly\n---\n${WORKER}\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, CADRE_CONFIG_DIR: project.configDir };
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    const child = spawn(process.execPath, [CADRE_BIN, '-p', 'fan out', '--yes'], {
      cwd: project.dir,
      env,
      stdio: 'ignore',
    });
    let peakKb = 0;
    const sample = setInterval(() => {
      try {
        const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      } catch {
        // The process has exited between two samples.
      }
    }, 20);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(sample);
    if (code !== 0) throw new Error(`fan-out of ${count} exited ${code}`);
    const children = server.requests.filter((r) => r.view.system.includes(WORKER));
    if (children.length !== count * workerTurns)
      throw new Error(`fan-out: ${children.length} worker requests`);
    return { children, peakRssMb: peakKb / 1024 };
  } finally {
    project.cleanup();
    await server.close();
  }
}

function span(requests: readonly RecordedRequest[]): number {
  const start = Math.min(...requests.map((r) => r.startedAt));
  const end = Math.max(...requests.map((r) => r.endedAt ?? r.startedAt));
  return end - start;
}

export interface SubagentBench {
  /** Four background children of 1 s model time each: their span, and 1 s / span. */
  batchSpanMs: number;
  parallelEfficiency: number;
  /** The same four as one coordinated batch (SPEC 8, 18): the children phase and 1 s / it. */
  coordinatedSpanMs: number;
  coordinatedEfficiency: number;
  /**
   * 32 children through 6 slots, 200 ms each: the shortest possible span (ceil(32/6) rounds of 200 ms)
   * over the measured one; 1.0 means a freed slot was always refilled at once.
   */
  queueEfficiency: number;
  queueSpanMs: number;
  /** Extra resident memory per concurrent tooled child (8 at once vs 1). */
  rssPerChildMb: number;
  /** Peak resident memory of the whole process with 8 tooled children running (MiB). */
  peakRss8Mb: number;
}

export async function benchSubagents(runs = 3): Promise<SubagentBench> {
  const spans: number[] = [];
  for (let i = 0; i < runs; i++) spans.push(span((await fanOut(4, 1000, 6)).children));
  const coordinated: number[] = [];
  for (let i = 0; i < runs; i++) coordinated.push(span((await fanOut(4, 1000, 6, 1, true)).children));
  const queueSpans: number[] = [];
  for (let i = 0; i < runs; i++) queueSpans.push(span((await fanOut(32, 200, 6)).children));
  const memory: number[] = [];
  const peaks: number[] = [];
  for (let i = 0; i < runs; i++) {
    const one = await fanOut(1, 300, 8, 4);
    const eight = await fanOut(8, 300, 8, 4);
    memory.push((eight.peakRssMb - one.peakRssMb) / 7);
    peaks.push(eight.peakRssMb);
  }
  const batchSpanMs = median(spans);
  const queueSpanMs = median(queueSpans);
  const coordinatedSpanMs = median(coordinated);
  return {
    batchSpanMs,
    parallelEfficiency: 1000 / batchSpanMs,
    coordinatedSpanMs,
    coordinatedEfficiency: 1000 / coordinatedSpanMs,
    queueSpanMs,
    queueEfficiency: (Math.ceil(32 / 6) * 200) / queueSpanMs,
    rssPerChildMb: median(memory),
    peakRss8Mb: median(peaks),
  };
}
