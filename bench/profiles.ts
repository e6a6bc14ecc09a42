import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfiles } from '../src/profile/load.js';
import { cpuMs } from './permission.js';

const FILES = 1000;
const RUNS = 7;

/** A realistic profile: nested permission block, lists, a few hundred bytes of prompt. */
function profileText(i: number): string {
  return [
    '---',
    `description: benchmark profile ${i}`,
    'model: haiku',
    'effort: high',
    'temperature: 0.3',
    'deny_tools: [bash, write]',
    'subagent_tools: readonly',
    'subagent_max_turns: 15',
    'permission:',
    '  allow: ["read(src/**)", "grep"]',
    '  deny: ["bash(git push *)"]',
    '---',
    `You are benchmark profile ${i}. `.repeat(20),
  ].join('\n');
}

/**
 * A profile as people write them (issue 17): comments, a folded block scalar, an anchor and its alias,
 * block lists, quoted patterns; the strict YAML parser reads every one of them.
 */
export function realisticProfileText(i: number): string {
  return [
    '---',
    `# Reviewer ${i}: owned by the platform team; keep in sync with docs/agents.md`,
    `description: >-`,
    `  Reviews changes in package ${i} for correctness and style,`,
    '  then reports findings with file and line.',
    'model: sonnet  # the cheaper model is not good enough here',
    'effort: medium',
    'temperature: 0.2',
    'allow_tools: &readonly',
    '  - read',
    '  - grep',
    '  - glob',
    '  - list_dir',
    'subagent_tools: readonly',
    'subagent_allow: *readonly',
    'subagent_max_turns: 12',
    'permission:',
    '  allow:',
    `    - "read(packages/p${i}/**)"`,
    '    - "bash(git diff *)"',
    '    - "bash(git log *)"',
    '  deny:',
    "    - 'bash(git push *)'",
    '---',
    `# Reviewer ${i}`,
    '',
    `You review package ${i}. Read the diff first, then the files it touches. `.repeat(8),
    '',
    '- Name every finding with its file and line.',
    '- Say what to change, not only what is wrong.',
  ].join('\n');
}

/**
 * Median wall time in ms to load `files` profiles of `text` (SPEC 18: 1,000 files under 200 ms), and the
 * median CPU time of the same loads (what a shared machine's load does not inflate).
 */
export async function benchProfiles(
  files = FILES,
  text = profileText,
): Promise<{ wallMs: number; cpuMs: number }> {
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-profiles-'));
  try {
    const agents = join(root, 'project', '.cadre', 'agents');
    mkdirSync(agents, { recursive: true });
    for (let i = 0; i < files; i++) writeFileSync(join(agents, `profile-${i}.md`), text(i));
    const options = {
      projectRoot: join(root, 'project'),
      globalDir: join(root, 'global'),
      home: join(root, 'home'),
    };
    const times: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const cpuStart = process.cpuUsage();
      const registry = loadProfiles(options);
      times.push(performance.now() - started);
      cpu.push(cpuMs(process.cpuUsage(cpuStart)));
      if (registry.profiles.size !== files + 4 || registry.warnings.length > 0) {
        throw new Error(
          `benchProfiles: loaded ${registry.profiles.size} profiles, ${registry.warnings.length} warnings: ${registry.warnings[0]?.reason}`,
        );
      }
    }
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return { wallMs: middle(times), cpuMs: middle(cpu) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
