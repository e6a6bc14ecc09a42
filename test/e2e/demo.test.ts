import { describe, expect, it } from 'vitest';
import { runCadre } from '../support/cli.js';

describe('cadre demo', () => {
  it('runs offline to completion, showing the edit and the passing test', async () => {
    // runCadre removes API keys from the environment, so a demo that reached a real provider would fail.
    const run = await runCadre(['demo']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/▸ edit math\.mjs\n.*Replaced 1 occurrence/);
    expect(run.stdout).toMatch(/▸ bash node test\.mjs[\s\S]*ok: add\(2, 3\) === 5/);
    expect(run.stdout).toMatch(/✓ completed in \d+ turns/);
  });
});
