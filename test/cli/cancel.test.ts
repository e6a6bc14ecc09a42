import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, REPO_ROOT } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

describe('cancellation', () => {
  it('SIGINT during a model call aborts the HTTP request and ends the run with exit 1', async () => {
    const server = await scriptedServer(script().turn((t) => t.delay(30_000).text('too late')));
    const p = makeProject({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    onTestFinished(() => p.cleanup());
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'cadre.js'), '-p', 'wait forever'], {
      cwd: p.dir,
      env: { ...process.env, CADRE_CONFIG_DIR: p.configDir },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await server.waitForRequests(1, 10_000);
    const interruptedAt = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(Date.now() - interruptedAt).toBeLessThan(5_000);
    expect(stderr).toContain('cancelled');
    await new Promise<void>((resolve) => {
      const check = () => (server.requests[0].endedAt !== undefined ? resolve() : setImmediate(check));
      check();
    });
    expect(server.requests[0].endedAt! - interruptedAt).toBeLessThan(5_000);
  });
});
