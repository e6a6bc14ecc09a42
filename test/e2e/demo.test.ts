import { describe, expect, it } from 'vitest';
import { runCadre } from '../support/cli.js';

describe('cadre demo', () => {
  it('runs offline to completion, showing the edit and the passing test', async () => {
    const run = await runCadre(['demo'], {
      env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/▸ edit math\.mjs\n.*Replaced 1 occurrence/);
    expect(run.stdout).toMatch(/▸ bash node test\.mjs[\s\S]*ok: add\(2, 3\) === 5/);
    expect(run.stdout).toMatch(/✓ completed in \d+ turns/);
  });
});
