import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bwrapTestsRun } from '../support/bwrap.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

/**
 * A CommonJS preload (no ES module loader of its own) writing, at exit, the builtins the process had loaded
 * when its first model request started (work a waiting run starts later, warm-ups from 100 ms into the
 * call that a loaded machine can reach, may load more) and at exit.
 */
const PRELOAD = `let atRequest;
require('node:diagnostics_channel').subscribe('http.client.request.start', () => {
  atRequest ??= [...process.moduleLoadList];
});
process.on('exit', () =>
  require('node:fs').writeFileSync(
    process.env.CADRE_TEST_BUILTINS_FILE,
    JSON.stringify({ atRequest: atRequest ?? [], atExit: process.moduleLoadList }),
  ),
);
`;

async function builtinsOf(project: ReturnType<typeof servedProject>, args: string[]) {
  const preload = project.path('builtins-preload.cjs');
  const file = project.path('builtins.json');
  writeFileSync(preload, PRELOAD);
  const run = await cadreIn(project, args, {
    env: { NODE_OPTIONS: `--require ${preload}`, CADRE_TEST_BUILTINS_FILE: file },
  });
  const loaded = JSON.parse(readFileSync(file, 'utf8')) as Record<'atRequest' | 'atExit', string[]>;
  const has = (when: keyof typeof loaded, name: string) => loaded[when].includes(`NativeModule ${name}`);
  return { run, has };
}

describe('cold start: builtins a plain answer does not use stay unloaded (issue 17)', () => {
  it('reaches the model request without the ES module loader, child_process or fs/promises', async () => {
    const server = await scriptedServer(script().turn((t) => t.text('hi there')));
    const project = servedProject(server);
    const { run, has } = await builtinsOf(project, ['-p', 'hi']);
    expect([run.code, run.stdout, run.stderr]).toEqual([0, 'hi there\n', '']);
    expect(has('atRequest', 'http')).toBe(true);
    expect(has('atRequest', 'internal/modules/esm/translators')).toBe(false);
    expect(has('atRequest', 'child_process')).toBe(false);
    expect(has('atRequest', 'fs/promises')).toBe(false);
  });

  it.runIf(bwrapTestsRun)('has child_process once a command ran, and the command works', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'echo from-bash' }))
        .turn((t) => t.text('done')),
    );
    const project = servedProject(server);
    const { run, has } = await builtinsOf(project, ['-p', 'run it', '--yes']);
    expect([run.code, run.stdout]).toEqual([0, 'done\n']);
    expect(JSON.stringify(toolResults(server.requests[1]))).toContain('from-bash');
    expect(has('atExit', 'child_process')).toBe(true);
  });
});
