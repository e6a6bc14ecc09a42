import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfiles } from '../src/profile/load.js';

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

/** Median wall time in ms to load 1,000 profile files (SPEC 18: under 200 ms). */
export async function benchProfiles(): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-profiles-'));
  try {
    const agents = join(root, 'project', '.cadre', 'agents');
    mkdirSync(agents, { recursive: true });
    for (let i = 0; i < FILES; i++) writeFileSync(join(agents, `profile-${i}.md`), profileText(i));
    const options = {
      projectRoot: join(root, 'project'),
      globalDir: join(root, 'global'),
      home: join(root, 'home'),
    };
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const registry = loadProfiles(options);
      times.push(performance.now() - started);
      if (registry.profiles.size !== FILES + 4 || registry.warnings.length > 0) {
        throw new Error(
          `benchProfiles: loaded ${registry.profiles.size} profiles, ${registry.warnings.length} warnings`,
        );
      }
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
