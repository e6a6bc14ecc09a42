import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

const SECRET = 'sk-test-secret-value-123';

describe.runIf(bwrapTestsRun)('the bash tool runs in the OS sandbox', () => {
  beforeAll(requireBwrap);

  it('writes in the project, cannot touch outside it when a rule lets the command run, and sees no secret in env', async () => {
    const outside = `/var/tmp/cadre-e2e-escape-${process.pid}`;
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'echo built > out.txt && cat out.txt' }))
        .turn((t) => t.tool('bash', { command: `touch $(echo ${outside})` }))
        .turn((t) => t.tool('bash', { command: 'env' }))
        .text('Done.'),
    );
    const project = servedProject(server);
    // The user's operator profile allows every command: only the sandbox stands in the way.
    const operator = join(project.configDir, 'allow-bash.json');
    writeFileSync(operator, JSON.stringify({ allow: ['bash'] }));
    try {
      const run = await cadreIn(project, ['-p', 'work', '--yes', '--permissions', operator], {
        env: { EXAMPLE_API_KEY: SECRET, DEPLOY_TOKEN: SECRET, CADRE_PERMISSIONS_TEST: 'visible' },
        timeoutMs: 60_000,
      });
      expect(run.stderr).not.toContain('without an OS sandbox');
      expect(run.code).toBe(0);
      const [built, touched, env] = [1, 2, 3].map((i) => toolResults(server.requests[i]).at(-1)?.text ?? '');
      expect(built).toBe('built\n[exit code 0]');
      expect(existsSync(project.path('out.txt'))).toBe(true);
      expect(existsSync(outside)).toBe(false);
      expect(touched).toContain('Read-only file system');
      expect(touched).toContain(`sandbox: ${outside} is not writable (writable: `);
      expect(env).toContain('CADRE_PERMISSIONS_TEST=visible');
      expect(env).not.toContain(SECRET);
    } finally {
      rmSync(outside, { force: true });
    }
  });
});
