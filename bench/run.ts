// `npm run bench`: SPEC 18 figures against the scripted model server on loopback. Prints a table of medians;
// exits non-zero when the prompt-cache prefix is unstable (the one property the bench asserts).
import { benchAcpStart } from './acp.js';
import { benchCacheStability } from './cache-stability.js';
import { benchColdStart } from './cold-start.js';
import { benchFleet } from './fleet.js';
import { benchPermission } from './permission.js';
import { benchProfiles } from './profiles.js';
import { benchSandbox, sandboxRows } from './sandbox.js';
import { benchSubagents } from './subagents.js';
import { benchToolLoop } from './tool-loop.js';
import { benchTui } from './tui.js';
import { benchWeb } from './web.js';
import { benchWorktree } from './worktree.js';

interface Row {
  name: string;
  value: string;
  target: string;
  ok: boolean | null;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function printTable(rows: Row[]): void {
  const header = { name: 'benchmark', value: 'median', target: 'target', verdict: 'verdict' };
  const lines = rows.map((r) => ({
    name: r.name,
    value: r.value,
    target: r.target,
    verdict: r.ok === null ? '' : r.ok ? 'ok' : 'OVER',
  }));
  const width = (key: keyof typeof header) =>
    Math.max(header[key].length, ...lines.map((l) => l[key].length));
  const format = (l: typeof header) =>
    `${l.name.padEnd(width('name'))}  ${l.value.padStart(width('value'))}  ${l.target.padEnd(width('target'))}  ${l.verdict}`.trimEnd();
  process.stdout.write(`${format(header)}\n${'-'.repeat(format(header).length + 6)}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
}

async function main(): Promise<number> {
  const rows: Row[] = [];
  const cold = await benchColdStart();
  rows.push(
    {
      name: `cold start: cadre -p to first model request (${cold.runs} runs)`,
      value: ms(cold.medianMs),
      target: '< 300 ms',
      ok: cold.medianMs < 300,
    },
    { name: "node -e '' baseline (spawn to exit)", value: ms(cold.nodeBaselineMs), target: '', ok: null },
    {
      name: 'cold start / node baseline',
      value: `${(cold.medianMs / cold.nodeBaselineMs).toFixed(2)}x`,
      target: '',
      ok: null,
    },
  );
  const tui = await benchTui();
  rows.push(
    {
      name: `interactive: pty spawn to the first frame with the input ready (${tui.runs} runs)`,
      value: ms(tui.firstFrameMs),
      target: '< 300 ms',
      ok: tui.firstFrameMs < 300,
    },
    {
      name: '  same / headless cold start',
      value: `${(tui.firstFrameMs / cold.medianMs).toFixed(2)}x`,
      target: '',
      ok: null,
    },
    {
      name: `interactive: keystroke to echo with a ${tui.transcriptMessages}-message transcript (${tui.keystrokes} keys)`,
      value: ms(tui.keystrokeEchoMs),
      target: '',
      ok: null,
    },
  );
  const acp = await benchAcpStart();
  rows.push(
    {
      name: `cadre acp: spawn to initialize response (${acp.runs} runs)`,
      value: ms(acp.initializeMs),
      target: '',
      ok: null,
    },
    {
      name: 'cadre acp: spawn to first agent_message_chunk (initialize, session/new, prompt)',
      value: ms(acp.firstChunkMs),
      target: '< 300 ms',
      ok: acp.firstChunkMs < 300,
    },
  );
  const loop = await benchToolLoop();
  rows.push(
    {
      name: `tool round trip overhead (${loop.calls} reads, ${loop.modelDelayMs} ms model delay, ${loop.runs} runs)`,
      value: ms(loop.overheadPerCallMs),
      target: '< 10 ms',
      ok: loop.overheadPerCallMs < 10,
    },
    {
      name: '  same, whole process as wall time (start-up included)',
      value: ms(loop.processOverheadPerCallMs),
      target: '',
      ok: null,
    },
  );
  const subagents = await benchSubagents();
  rows.push(
    {
      name: '4 background subagents of 1 s model time: span of their calls',
      value: ms(subagents.batchSpanMs),
      target: '< 1100 ms',
      ok: subagents.batchSpanMs < 1100,
    },
    {
      name: '  parallel efficiency (1 s / span)',
      value: subagents.parallelEfficiency.toFixed(2),
      target: '>= 0.90',
      ok: subagents.parallelEfficiency >= 0.9,
    },
    {
      name: 'coordinated batch of 4 subagents of 1 s model time: children phase',
      value: ms(subagents.coordinatedSpanMs),
      target: '< 1100 ms',
      ok: subagents.coordinatedSpanMs < 1100,
    },
    {
      name: '  parallel efficiency (1 s / children phase)',
      value: subagents.coordinatedEfficiency.toFixed(2),
      target: '>= 0.90',
      ok: subagents.coordinatedEfficiency >= 0.9,
    },
    {
      name: '32 queued subagents through 6 slots: ideal span / measured span',
      value: subagents.queueEfficiency.toFixed(2),
      target: '>= 0.90',
      ok: subagents.queueEfficiency >= 0.9,
    },
    {
      name: 'memory per additional concurrent tooled subagent (8 vs 1)',
      value: `${subagents.rssPerChildMb.toFixed(1)} MB`,
      target: '< 15 MB',
      ok: subagents.rssPerChildMb < 15,
    },
  );
  const fleet = await benchFleet();
  rows.push(
    {
      name: `fleet of 6 writers, disjoint claims, 2 × 0.5 s model calls each, 3 writers at a time (${fleet.runs} runs)`,
      value: ms(fleet.childrenMs),
      target: `≈ ${fleet.idealMs} ms`,
      ok: null,
    },
    {
      name: '  ideal / measured children phase',
      value: (fleet.idealMs / fleet.childrenMs).toFixed(2),
      target: '',
      ok: null,
    },
  );
  const worktree = await benchWorktree();
  rows.push({
    name: `writer worktree: make + remove one (git worktree add -b, remove, branch -D; ${worktree.runs} runs)`,
    value: ms(worktree.medianMs),
    target: '',
    ok: null,
  });
  const permission = await benchPermission();
  rows.push({
    name: permission.name,
    value: ms(permission.median_ms),
    target: `< ${permission.target_ms} ms`,
    ok: permission.ok,
  });
  rows.push(...sandboxRows(await benchSandbox()));
  const profiles = await benchProfiles();
  rows.push({
    name: 'profile loading: 1,000 profile files',
    value: ms(profiles),
    target: '< 200 ms',
    ok: profiles < 200,
  });
  const web = await benchWeb();
  rows.push(
    {
      name: `cadre web: start to URL printed (${web.runs} runs)`,
      value: ms(web.startMedianMs),
      target: '',
      ok: null,
    },
    {
      name: `cadre web: prompt sent to first answer byte in Chromium (${web.prompts} prompts)`,
      value: web.firstByteMedianMs === null ? 'no /usr/bin/chromium' : ms(web.firstByteMedianMs),
      target: '',
      ok: null,
    },
  );
  let stable = true;
  for (const wire of ['openai', 'anthropic'] as const) {
    const cache = await benchCacheStability(wire);
    stable &&= cache.stable;
    rows.push({
      name: `prompt-cache prefix stable over ${cache.turns} turns (${wire} wire)`,
      value: cache.stable ? 'identical' : (cache.problem ?? 'changed'),
      target: 'identical',
      ok: cache.stable,
    });
  }
  printTable(rows);
  if (!stable) process.stderr.write('bench: the tool list or system prompt changed between turns\n');
  return stable ? 0 : 1;
}

process.exitCode = await main();
