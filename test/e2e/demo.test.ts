import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCadre } from '../support/cli.js';

/** The reconciliation as the demo prints it: header, then one entry per task, in dispatch order. */
const RECONCILED =
  /═ batch b-[0-9a-f]+ reconciled; the model receives:\n {4}│ Coordinator batch is complete\./;

/** A PATH with the tools the demo needs but no bwrap: the sandbox probe fails as on a restricted host. */
function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-nobwrap-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of ['git', 'bash', 'sh', 'node', 'env', 'ls', 'cat']) {
    for (const prefix of ['/usr/bin', '/bin', '/usr/local/bin']) {
      try {
        symlinkSync(join(prefix, tool), join(bin, tool));
        break;
      } catch {
        // Not there; try the next prefix.
      }
    }
  }
  return bin;
}

describe('cadre demo', () => {
  it('runs a researcher and an isolated writer as one batch, prints the reconciliation, and merges the branch', async () => {
    // runCadre removes API keys from the environment, so a demo that reached a real provider would fail.
    const run = await runCadre(['demo'], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/⇢ subagent [0-9a-f]{12} \(researcher\) in batch b-[0-9a-f]+/);
    expect(run.stdout).toMatch(/⇢ subagent [0-9a-f]{12} \(implementer\) in batch b-[0-9a-f]+/);
    expect(run.stdout).toMatch(RECONCILED);
    expect(run.stdout).toMatch(/\[task [0-9a-f]{12} \(readonly\)\] prompt: Why does/);
    expect(run.stdout).toMatch(/\[implementer\] {5}│ ok: add\(2, 3\) === 5/);
    expect(run.stdout).toMatch(/✓ completed in \d+ turns/);
    // bubblewrap is installed wherever the tests run (.ci/run installs it): the writer is isolated.
    expect(run.stdout).toContain('writer isolation: worktree');
    expect(run.stdout).toMatch(/writer branch: cadre-task-[0-9a-f-]{36}/);
    expect(run.stdout).toMatch(/writer commits: [0-9a-f]{40}/);
    expect(run.stdout).toMatch(
      /\$ cadre tasks merge [0-9a-f]{12}\nmerged cadre-task-\S+ \(1 commit\) into main/,
    );
    expect(run.stdout).toMatch(/\$ node test\.mjs\nok: add\(2, 3\) === 5/);
  });

  it('without a working sandbox the writer runs serialized, the demo says why, skips the merge and exits 0', async () => {
    const run = await runCadre(['demo'], { timeoutMs: 60_000, env: { PATH: pathWithoutBwrap() } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('writer isolation: serialized parent checkout');
    expect(run.stdout).toMatch(
      /The implementer ran serialized in the parent checkout \(.*no confining sandbox/,
    );
    expect(run.stdout).not.toContain('$ cadre tasks merge');
  });
});
