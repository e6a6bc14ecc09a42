// `npm run bench`: SPEC 18 and issue 17 figures against the scripted model server on loopback. Prints a table
// of medians and ratios; `-- --json [file]` also writes every figure with the machine, Node version, date and
// load to a file (default bench-results.json) for comparing a change with main and for the README table
// (`node bench/readme-table.ts <file>`). `-- --only cold,turns` runs some groups. Exits non-zero when the
// prompt-cache prefix is unstable (the one property the bench asserts).
import { writeFileSync } from 'node:fs';
import { benchAcpStart } from './acp.js';
import { benchCacheStability } from './cache-stability.js';
import { benchColdStart, type ColdStartResult } from './cold-start.js';
import { benchFleet } from './fleet.js';
import { benchPeers } from './peers.js';
import { benchPermission, benchRealisticPermission } from './permission.js';
import { benchProfiles, realisticProfileText } from './profiles.js';
import { benchRemote } from './remote.js';
import { type Figure, machine, printTable } from './report.js';
import { benchSandbox, sandboxFigures } from './sandbox.js';
import { benchSubagents } from './subagents.js';
import { benchToolLoop } from './tool-loop.js';
import { benchTui } from './tui.js';
import { benchTurns } from './turns.js';
import { benchWeb } from './web.js';
import { benchWorktree } from './worktree.js';

const ms = (name: string, value: number, target?: number, key?: string): Figure => ({
  key: key ?? name,
  name,
  value,
  unit: 'ms',
  target: target === undefined ? undefined : { max: target },
});

const mib = (key: string, name: string, value: number, max: number): Figure => ({
  key,
  name,
  value,
  unit: 'MiB',
  target: { max },
});

type Group = (figures: Figure[], context: { cold?: ColdStartResult }) => Promise<void>;

const GROUPS: Record<string, Group> = {
  async cold(figures, context) {
    const cold = await benchColdStart();
    context.cold = cold;
    const spread = (s: { min: number; median: number; max: number }) =>
      `min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}`;
    figures.push(
      {
        ...ms(
          `cold: cadre -p hi, spawn to first model request (${cold.runs} runs)`,
          cold.firstRequestMs.median,
          300,
        ),
        key: 'cold.first_request_ms',
        note: spread(cold.firstRequestMs),
      },
      {
        ...ms(`cold: cadre -p hi, spawn to exit (${cold.runs} runs)`, cold.exitMs.median),
        key: 'cold.exit_ms',
        note: spread(cold.exitMs),
      },
      {
        ...ms(`cold: node -e 0, spawn to exit (${cold.runs} runs, interleaved)`, cold.nodeMs.median),
        key: 'cold.node_ms',
        note: spread(cold.nodeMs),
      },
      {
        key: 'cold.exit_ratio',
        name: '  cadre -p hi to exit / node -e 0',
        value: cold.exitRatio,
        unit: 'x',
        target: { max: 2.5 },
      },
      {
        key: 'cold.first_request_ratio',
        name: '  cadre -p hi to first request / node -e 0',
        value: cold.firstRequestRatio,
        unit: 'x',
      },
      {
        ...ms(
          `cold: cadre -p hi without a code cache (first run after an upgrade), spawn to exit (${cold.runs} runs, interleaved)`,
          cold.uncachedExitMs.median,
        ),
        key: 'cold.uncached_exit_ms',
        note: spread(cold.uncachedExitMs),
      },
      {
        key: 'cold.uncached_exit_ratio',
        name: '  cadre -p hi without a code cache to exit / node -e 0',
        value: cold.uncachedExitRatio,
        unit: 'x',
      },
      mib('cold.peak_rss_mib', 'peak RSS of cadre -p hi', cold.peakRssMb, 90),
    );
  },
  async turns(figures) {
    const turns = await benchTurns();
    figures.push(
      {
        ...ms(
          `${turns.turns}-turn session (bash, read, grep, edit; first answer 500 ms): turn overhead, mean (${turns.runs} runs)`,
          turns.meanOverheadMs,
          10,
        ),
        key: 'turns.mean_overhead_ms',
      },
      {
        ...ms(`  slowest turn of that session (${turns.slowestTool})`, turns.slowestTurnMs, 25),
        key: 'turns.slowest_ms',
      },
      mib('turns.peak_rss_mib', '  peak RSS over that session', turns.peakRssMb, 120),
    );
  },
  async loop(figures) {
    const loop = await benchToolLoop();
    figures.push(
      {
        ...ms(
          `tool round trip overhead (${loop.calls} reads, ${loop.modelDelayMs} ms model delay, ${loop.runs} runs)`,
          loop.overheadPerCallMs,
          10,
        ),
        key: 'loop.overhead_ms',
      },
      {
        ...ms('  same, whole process as wall time (start-up included)', loop.processOverheadPerCallMs),
        key: 'loop.process_overhead_ms',
      },
    );
  },
  async peers(figures) {
    figures.push(...(await benchPeers()));
  },
  async tui(figures, context) {
    const tui = await benchTui();
    figures.push(
      {
        ...ms(
          `interactive: pty spawn to the first frame with the input ready (${tui.runs} runs)`,
          tui.firstFrameMs,
          300,
        ),
        key: 'tui.first_frame_ms',
      },
      {
        ...ms(
          `interactive: keystroke to echo with a ${tui.transcriptMessages}-message transcript (${tui.keystrokes} keys)`,
          tui.keystrokeEchoMs,
        ),
        key: 'tui.keystroke_ms',
      },
    );
    if (context.cold)
      figures.push({
        key: 'tui.first_frame_ratio',
        name: '  first frame / headless spawn to first request',
        value: tui.firstFrameMs / context.cold.firstRequestMs.median,
        unit: 'x',
      });
  },
  async acp(figures) {
    const acp = await benchAcpStart();
    figures.push(
      {
        ...ms(`cadre acp: spawn to initialize response (${acp.runs} runs)`, acp.initializeMs),
        key: 'acp.initialize_ms',
      },
      {
        ...ms(
          'cadre acp: spawn to first agent_message_chunk (initialize, session/new, prompt)',
          acp.firstChunkMs,
          300,
        ),
        key: 'acp.first_chunk_ms',
      },
    );
    // Issue 11's budget for the first chunk is the headless cold-start budget (SPEC 18: 300 ms), the target
    // above. The paired ratio is for comparison on a busy machine, not a target: the chunk comes after two
    // client round trips and the reply, where the headless figure ends at its first request.
    figures.push({
      key: 'acp.first_chunk_ratio',
      name: '  first chunk / headless spawn to first request (paired runs)',
      value: acp.firstChunkRatio,
      unit: 'x',
      note: `headless ${acp.headlessFirstRequestMs.toFixed(0)} ms`,
    });
    figures.push(
      { ...ms('  spawn to session/new response', acp.sessionNewMs), key: 'acp.session_new_ms' },
      {
        ...ms('  spawn to its first model request (where the headless figure ends)', acp.firstRequestMs),
        key: 'acp.first_request_ms',
      },
      {
        ...ms(
          `cadre acp: prompt to first chunk on a session open and idle (${acp.idlePromptRuns} runs)`,
          acp.idlePromptChunkMs,
        ),
        key: 'acp.idle_prompt_chunk_ms',
      },
    );
  },
  async subagents(figures) {
    const subagents = await benchSubagents();
    figures.push(
      {
        ...ms('4 background subagents of 1 s model time: span of their calls', subagents.batchSpanMs, 1100),
        key: 'subagents.batch_span_ms',
      },
      {
        key: 'subagents.parallel_efficiency',
        name: '  parallel efficiency (1 s / span)',
        value: subagents.parallelEfficiency,
        unit: '',
        target: { min: 0.9 },
      },
      {
        ...ms(
          'coordinated batch of 4 subagents of 1 s model time: children phase',
          subagents.coordinatedSpanMs,
          1100,
        ),
        key: 'subagents.coordinated_span_ms',
      },
      {
        key: 'subagents.coordinated_efficiency',
        name: '  parallel efficiency (1 s / children phase)',
        value: subagents.coordinatedEfficiency,
        unit: '',
        target: { min: 0.9 },
      },
      {
        key: 'subagents.queue_efficiency',
        name: '32 queued subagents through 6 slots: ideal span / measured span',
        value: subagents.queueEfficiency,
        unit: '',
        target: { min: 0.9 },
      },
      {
        key: 'subagents.rss_per_child_mb',
        name: 'memory per additional concurrent tooled subagent (8 vs 1)',
        value: subagents.rssPerChildMb,
        unit: 'MB',
        target: { max: 15 },
      },
      mib('subagents.peak_rss_8_mib', 'peak RSS with 8 running tooled subagents', subagents.peakRss8Mb, 120),
    );
  },
  async fleet(figures) {
    const fleet = await benchFleet();
    figures.push(
      {
        ...ms(
          `fleet of 6 writers, disjoint claims, 2 × 0.5 s model calls each, 3 writers at a time (${fleet.runs} runs)`,
          fleet.childrenMs,
        ),
        key: 'fleet.children_ms',
        note: `ideal ${fleet.idealMs} ms`,
      },
      {
        key: 'fleet.efficiency',
        name: '  ideal / measured children phase',
        value: fleet.idealMs / fleet.childrenMs,
        unit: '',
      },
    );
  },
  async remote(figures) {
    const remote = await benchRemote();
    figures.push(
      {
        ...ms(
          `queue backend: task dispatch to the child's first model call, local (${remote.runs} runs)`,
          remote.localMs,
        ),
        key: 'remote.dispatch_local_ms',
      },
      {
        ...ms('  same on a remote worker through Redis', remote.queueMs),
        key: 'remote.dispatch_queue_ms',
      },
      {
        ...ms(
          `queue backend: fleet of 12 single-call 1 s writers on 3 workers × 2 slots (${remote.fleetRuns} runs)`,
          remote.fleetMs,
        ),
        key: 'remote.fleet_ms',
        note: `ideal ${remote.idealMs} ms`,
      },
      {
        key: 'remote.fleet_efficiency',
        name: '  ideal / measured children phase',
        value: remote.idealMs / remote.fleetMs,
        unit: '',
      },
    );
  },
  async sandbox(figures) {
    figures.push(...sandboxFigures(await benchSandbox()));
  },
  async worktree(figures) {
    const worktree = await benchWorktree();
    figures.push({
      ...ms(
        `writer worktree: make + remove one (git worktree add -b, remove, branch -D; ${worktree.runs} runs)`,
        worktree.medianMs,
      ),
      key: 'worktree.ms',
    });
  },
  async permission(figures) {
    const permission = await benchPermission();
    const realistic = await benchRealisticPermission();
    figures.push(
      {
        ...ms(permission.name, permission.median_ms, permission.target_ms),
        key: 'permission.spec_ms',
        note: `cpu ${permission.cpu_ms.toFixed(0)} ms`,
      },
      {
        key: 'permission.realistic_p99_us',
        name: `permission decision, ${realistic.rules} realistic rules sharing first words: p99 (median of ${realistic.p99RoundsUs.length} rounds)`,
        value: realistic.p99Us,
        unit: 'µs',
        target: { max: 50 },
        note: `p50 ${realistic.p50Us.toFixed(1)} µs; rounds ${Math.min(...realistic.p99RoundsUs).toFixed(0)}-${Math.max(...realistic.p99RoundsUs).toFixed(0)} µs`,
      },
      {
        key: 'permission.noise_floor_p99_us',
        name: '  noise floor: p99 of a fixed computation as long as the median decision, timed the same way',
        value: realistic.noiseFloorP99Us,
        unit: 'µs',
      },
      {
        key: 'permission.analysis_us',
        name: '  bash analysis of a command not seen before (median)',
        value: realistic.analysisMedianUs,
        unit: 'µs',
      },
    );
  },
  async profiles(figures) {
    const spec = await benchProfiles();
    const realistic = await benchProfiles(200, realisticProfileText);
    figures.push(
      {
        ...ms('profile loading: 1,000 profile files', spec.wallMs, 200),
        key: 'profiles.spec_ms',
        note: `cpu ${spec.cpuMs.toFixed(0)} ms`,
      },
      {
        ...ms(
          'profile loading: 200 realistic profiles (comments, block scalars, anchors)',
          realistic.wallMs,
          40,
        ),
        key: 'profiles.realistic_ms',
        note: `cpu ${realistic.cpuMs.toFixed(0)} ms`,
      },
    );
  },
  async web(figures) {
    const web = await benchWeb();
    figures.push({
      ...ms(`cadre web: start to URL printed (${web.runs} runs)`, web.startMedianMs),
      key: 'web.start_ms',
    });
    if (web.firstByteMedianMs !== null)
      figures.push({
        ...ms(
          `cadre web: prompt sent to first answer byte in Chromium (${web.prompts} prompts)`,
          web.firstByteMedianMs,
        ),
        key: 'web.first_byte_ms',
      });
  },
  async cache(figures) {
    for (const wire of ['openai', 'anthropic'] as const) {
      const cache = await benchCacheStability(wire);
      figures.push({
        key: `cache.${wire}_stable`,
        name: `prompt-cache prefix stable over ${cache.turns} turns (${wire} wire)`,
        value: cache.stable ? 1 : 0,
        unit: 'bool',
        target: { min: 1 },
        note: cache.stable ? 'identical' : (cache.problem ?? 'changed'),
      });
    }
  },
};

function argValue(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const next = args[at + 1];
  return next === undefined || next.startsWith('--') ? '' : next;
}

async function main(args: string[]): Promise<number> {
  const json = argValue(args, '--json');
  const only = argValue(args, '--only');
  const names = only ? only.split(',') : Object.keys(GROUPS);
  const unknown = names.filter((n) => !(n in GROUPS));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown group ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}\n`,
    );
    return 2;
  }
  const started = machine();
  const figures: Figure[] = [];
  const context = {};
  for (const name of names) await GROUPS[name](figures, context);
  printTable(figures);
  if (json !== undefined) {
    const file = json === '' ? 'bench-results.json' : json;
    const result = { ...started, loadAverageEnd: machine().loadAverage, figures };
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`bench: wrote ${file}\n`);
  }
  const unstable = figures.filter((f) => f.key.startsWith('cache.') && f.value !== 1);
  if (unstable.length > 0)
    process.stderr.write('bench: the tool list or system prompt changed between turns\n');
  return unstable.length > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
