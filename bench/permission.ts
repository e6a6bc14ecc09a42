import type { AnalysedCall } from '../src/permission/decide.js';
import { createPermissionGate } from '../src/permission/gate.js';
import type { PermissionCall } from '../src/permission/types.js';

const bashCall = (command: string): PermissionCall => ({
  tool: 'bash',
  subject: { kind: 'bash', command },
  safety: 'write',
  agent: 'main',
});

const pathCall = (tool: string, path: string, safety: 'read' | 'write'): PermissionCall => ({
  tool,
  subject: { kind: 'path', paths: [path] },
  safety,
  agent: 'main',
});

const urlCall = (url: string): PermissionCall => ({
  tool: 'webfetch',
  subject: { kind: 'url', url },
  safety: 'read',
  agent: 'main',
});

const RULES = 1000;
const DECISIONS = 100_000;
const RUNS = 5;
const COMMANDS = [
  'git',
  'npm',
  'ls',
  'cat',
  'grep',
  'make',
  'docker',
  'cargo',
  'node',
  'python',
  'curl',
  'rm',
  'sed',
  'find',
];
const SUBCOMMANDS = ['status', 'diff', 'log', 'push', 'install', 'test', 'run', 'build', 'show', 'exec'];

/** 1,000 rules: mostly bash patterns over many commands, some path, url and MCP rules. */
function benchRules(): { allow: string[]; ask: string[]; deny: string[] } {
  const lists = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  const order = ['allow', 'ask', 'deny'] as const;
  for (let i = 0; i < RULES; i++) {
    const list = lists[order[i % 3]];
    const kind = i % 10;
    if (kind < 7)
      list.push(`bash(${COMMANDS[i % COMMANDS.length]}${i} ${SUBCOMMANDS[i % SUBCOMMANDS.length]} *)`);
    else if (kind === 7) list.push(`edit(src/module${i}/**)`);
    else if (kind === 8) list.push(`webfetch(domain:host${i}.example.com)`);
    else list.push(`mcp__server${i}__*`);
  }
  lists.allow.push('bash(git diff *)', 'bash(ls *)', 'read(src/**)');
  lists.deny.push('bash(git push *)', 'bash(rm *)');
  return lists;
}

const CALLS: string[] = [
  'git diff HEAD',
  'ls -la src',
  'git push origin main',
  'git diff && rm -rf x',
  'npm test',
  'cat a > out.txt',
  'curl x | sh',
  'git status; git log',
];

/** User plus system time of a `process.cpuUsage` difference, in ms. */
export function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** First words real rule sets repeat: many rules per command, told apart by later words. */
const REAL_COMMANDS: Record<string, string[]> = {
  git: [
    'status',
    'diff',
    'log',
    'show',
    'add',
    'commit',
    'push',
    'pull',
    'fetch',
    'checkout',
    'rebase',
    'stash',
  ],
  npm: ['run test', 'run build', 'run lint', 'install', 'ci', 'publish', 'exec', 'view'],
  docker: ['ps', 'build', 'run', 'compose up', 'compose down', 'logs', 'exec', 'push'],
  kubectl: ['get', 'describe', 'logs', 'apply', 'delete', 'exec', 'rollout status'],
  cargo: ['build', 'test', 'check', 'clippy', 'fmt', 'publish', 'run'],
  python: ['-m pytest', '-m pip install', '-c', 'manage.py test', 'manage.py migrate'],
  gh: ['pr view', 'pr create', 'pr merge', 'issue list', 'run watch', 'api'],
};

/** 500 rules as people write them: a few first words with many subcommands, then paths, hosts and MCP. */
export function realisticRules(count = 500): { allow: string[]; ask: string[]; deny: string[] } {
  const lists = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  const entries = Object.entries(REAL_COMMANDS);
  for (let i = 0; lists.allow.length + lists.ask.length + lists.deny.length < count; i++) {
    const [command, subs] = entries[i % entries.length];
    const sub = subs[Math.floor(i / entries.length) % subs.length];
    const variant = Math.floor(i / (entries.length * 3)) % 6;
    const list = /push|publish|delete|merge|apply/.test(sub)
      ? lists.deny
      : i % 5 === 0
        ? lists.ask
        : lists.allow;
    if (variant === 0) list.push(`bash(${command} ${sub} *)`);
    else if (variant === 1) list.push(`bash(${command} ${sub} --dry-run *)`);
    else if (variant === 2) list.push(`bash(${command} ${sub}:*)`);
    else if (variant === 3) list.push(`edit(packages/p${i}/src/**)`);
    else if (variant === 4) list.push(`webfetch(domain:docs${i}.example.com)`);
    else list.push(`read(~/.config/tool${i}/**)`);
  }
  lists.deny.push('read(~/.ssh/**)', 'bash(rm -rf *)', 'edit(.env*)');
  return lists;
}

const REAL_CALLS = [
  'git status',
  'git diff HEAD~1 -- src/a.ts',
  'git log --oneline -20',
  'git add -A && git commit -m "wip"',
  'git push origin HEAD',
  'npm run test -- --watch=false',
  'npm install left-pad',
  'docker compose up -d',
  'kubectl get pods -n prod | grep api',
  'cargo clippy --all-targets',
  'python -m pytest tests/ -x',
  'gh pr view 12 --json title',
  'ls -la src && wc -l src/*.ts',
  'cat package.json | head -20',
  'rm -rf dist',
];

/** Decisions run untimed first: the p99 is of the decision code as V8 runs it after its first calls. */
const WARMUP_DECISIONS = 2_000;
const P99_ROUNDS = 5;

/** `iterations` of a fixed computation, timed one by one as the decisions are. */
function timedSpins(iterations: number, samples: number): number[] {
  const times: number[] = [];
  let sink = 0;
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    for (let k = 0; k < iterations; k++) sink += Math.sqrt(k + i);
    times.push((performance.now() - started) * 1000);
  }
  return sink < 0 ? [] : times;
}

/**
 * p99 of a fixed computation as long as the median decision, timed the same way: what the machine's
 * timer, interrupts and other processes add to any sample of that length (a few µs on an idle machine,
 * tens on a loaded one).
 */
function noiseFloorP99(medianUs: number, samples: number): number {
  const perIteration = percentile(timedSpins(1000, 500), 0.5) / 1000;
  const iterations = Math.max(1, Math.round(medianUs / perIteration));
  return percentile(timedSpins(iterations, samples), 0.99);
}

/**
 * Issue 17: one decision against 500 realistic rules, timed call by call (p99 target 50 µs). Bash analysis
 * is cached per command string, as the gate does; its own cost (a new command string) is reported apart.
 * The p99 is the median of several rounds' p99s, so one burst of load on a shared machine does not decide
 * it; the noise floor says how much of it the machine adds.
 */
export async function benchRealisticPermission(decisions = 20_000): Promise<{
  rules: number;
  p50Us: number;
  p99Us: number;
  p99RoundsUs: number[];
  noiseFloorP99Us: number;
  analysisMedianUs: number;
}> {
  const rules = realisticRules();
  const gate = createPermissionGate({
    root: '/bench-project',
    home: '/bench-home',
    safety: 'full',
    yes: false,
    config: [{ file: 'bench.json', block: rules }],
  });
  const calls: PermissionCall[] = [
    ...REAL_CALLS.map(bashCall),
    pathCall('edit', '/bench-project/packages/p3/src/a.ts', 'write'),
    pathCall('read', '/bench-home/.ssh/id_rsa', 'read'),
    urlCall('https://docs4.example.com/a'),
  ];
  // Analysis of a command string seen for the first time (a new last word each round defeats the cache);
  // round 0 also loads the parser and is left out.
  const analysis: number[] = [];
  for (let round = 0; round < 6; round++) {
    for (const call of calls) {
      if (call.subject.kind !== 'bash') continue;
      const command = `${call.subject.command} r${round}`;
      const started = performance.now();
      await gate.analyze({ ...call, subject: { kind: 'bash', command } });
      if (round > 0) analysis.push((performance.now() - started) * 1000);
    }
  }
  const analysed: AnalysedCall[] = [];
  for (const call of calls) analysed.push(await gate.analyze(call));
  for (let i = 0; i < WARMUP_DECISIONS; i++) gate.decideAnalysed(analysed[i % analysed.length]);
  const p50s: number[] = [];
  const p99s: number[] = [];
  const floors: number[] = [];
  for (let round = 0; round < P99_ROUNDS; round++) {
    const times: number[] = [];
    for (let i = 0; i < decisions; i++) {
      const call = analysed[i % analysed.length];
      const started = performance.now();
      gate.decideAnalysed(call);
      times.push((performance.now() - started) * 1000);
    }
    p50s.push(percentile(times, 0.5));
    p99s.push(percentile(times, 0.99));
    floors.push(noiseFloorP99(percentile(times, 0.5), decisions));
  }
  const total = rules.allow.length + rules.ask.length + rules.deny.length;
  return {
    rules: total,
    p50Us: median(p50s),
    p99Us: median(p99s),
    p99RoundsUs: p99s,
    noiseFloorP99Us: median(floors),
    analysisMedianUs: median(analysis),
  };
}

/** SPEC 18: 1,000 rules × 100,000 decisions under 1 s (bash analysis cached per command string). */
export async function benchPermission(): Promise<{
  name: string;
  median_ms: number;
  /** CPU time of the same runs (median): what a shared machine's load does not inflate. */
  cpu_ms: number;
  rules: number;
  decisions: number;
  target_ms: number;
  ok: boolean;
}> {
  const gate = createPermissionGate({
    root: '/bench-project',
    home: '/bench-home',
    safety: 'full',
    yes: false,
    config: [{ file: 'bench.json', block: benchRules() }],
  });
  const bashCalls = CALLS.map(bashCall);
  const otherCalls: PermissionCall[] = [
    pathCall('edit', '/bench-project/src/module7/a.ts', 'write'),
    pathCall('read', '/bench-project/src/x.ts', 'read'),
    urlCall('https://host8.example.com/a'),
    { tool: 'mcp__server9__tool', subject: { kind: 'none' }, safety: 'write', agent: 'main' },
  ];
  const analysed: AnalysedCall[] = [];
  for (const call of [...bashCalls, ...otherCalls]) analysed.push(await gate.analyze(call));
  const times: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < DECISIONS; i++) gate.decideAnalysed(analysed[i % analysed.length]);
    times.push(performance.now() - start);
    cpu.push(cpuMs(process.cpuUsage(cpuStart)));
  }
  const medianMs = median(times);
  return {
    name: 'permission: 1,000 rules x 100,000 decisions',
    median_ms: medianMs,
    cpu_ms: median(cpu),
    rules: RULES,
    decisions: DECISIONS,
    target_ms: 1000,
    ok: medianMs < 1000,
  };
}
