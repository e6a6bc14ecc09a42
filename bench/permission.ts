import type { AnalysedCall } from '../src/permission/decide.js';
import { createPermissionGate } from '../src/permission/gate.js';
import type { PermissionCall } from '../src/permission/types.js';

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** SPEC 18: 1,000 rules × 100,000 decisions under 1 s (bash analysis cached per command string). */
export async function benchPermission(): Promise<{
  name: string;
  median_ms: number;
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
  const bashCalls = CALLS.map(
    (command): PermissionCall => ({
      tool: 'bash',
      subject: { kind: 'bash', command },
      safety: 'write',
      agent: 'main',
    }),
  );
  const otherCalls: PermissionCall[] = [
    {
      tool: 'edit',
      subject: { kind: 'path', paths: ['/bench-project/src/module7/a.ts'] },
      safety: 'write',
      agent: 'main',
    },
    {
      tool: 'read',
      subject: { kind: 'path', paths: ['/bench-project/src/x.ts'] },
      safety: 'read',
      agent: 'main',
    },
    {
      tool: 'webfetch',
      subject: { kind: 'url', url: 'https://host8.example.com/a' },
      safety: 'read',
      agent: 'main',
    },
    { tool: 'mcp__server9__tool', subject: { kind: 'none' }, safety: 'write', agent: 'main' },
  ];
  const analysed: AnalysedCall[] = [];
  for (const call of [...bashCalls, ...otherCalls]) analysed.push(await gate.analyze(call));
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    for (let i = 0; i < DECISIONS; i++) gate.decideAnalysed(analysed[i % analysed.length]);
    times.push(performance.now() - start);
  }
  const medianMs = median(times);
  return {
    name: 'permission: 1,000 rules x 100,000 decisions',
    median_ms: medianMs,
    rules: RULES,
    decisions: DECISIONS,
    target_ms: 1000,
    ok: medianMs < 1000,
  };
}
