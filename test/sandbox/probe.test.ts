import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBwrapProbe, runBwrapProbeAsync } from '../../src/sandbox/probe.js';

const dir = mkdtempSync(join(tmpdir(), 'cadre-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for bwrap that ignores its arguments, says `said` on stderr and exits `code`. */
function fakeBwrap(name: string, code: number, said = ''): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${said ? `echo '${said}' >&2\n` : ''}exit ${code}\n`);
  chmodSync(file, 0o755);
  return file;
}

// The background probe (run while cadre loads, issue 17) must decide exactly as the blocking one did.
describe('the background bwrap probe', () => {
  const cases: [string, () => string][] = [
    ['a working bwrap', () => fakeBwrap('works', 0)],
    [
      'a bwrap that fails and says why',
      () => fakeBwrap('fails', 1, 'bwrap: No permissions to create new namespace'),
    ],
    ['a bwrap that fails silently', () => fakeBwrap('silent', 3)],
    ['no bwrap at all', () => join(dir, 'missing-bwrap')],
  ];
  it.each(cases)('agrees with the blocking probe for %s', async (_, file) => {
    const path = file();
    const blocking = runBwrapProbe(path);
    expect(await runBwrapProbeAsync(path)).toEqual(blocking);
  });

  it('names a missing bwrap as not installed', async () => {
    const result = await runBwrapProbeAsync(join(dir, 'absent'));
    expect(result).toEqual({ ok: false, error: expect.stringContaining('is not installed') });
  });

  it('reports what a failing bwrap said', async () => {
    const result = await runBwrapProbeAsync(fakeBwrap('loud', 1, 'setting up uid map: Permission denied'));
    expect(result).toEqual({
      ok: false,
      error: expect.stringContaining('setting up uid map: Permission denied'),
    });
  });
});
