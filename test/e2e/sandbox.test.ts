import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findOnPath } from '../../src/sandbox/probe-cache.js';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, startCadre, toolResults } from './harness.js';

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

  /** Processes whose command line holds `text` (pgrep exits 1 when there is none). */
  function pgrep(text: string): string[] {
    try {
      return execFileSync('pgrep', ['-f', '-a', text], { encoding: 'utf8' }).trim().split('\n');
    } catch {
      return [];
    }
  }

  it('runs the calls of a session on one warm sandbox and leaves no sandbox process when cadre exits', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'echo one; ps -e -o comm= | grep -c "^bash$"' }))
        .turn((t) => t.tool('bash', { command: 'echo two; sleep 300 & echo started' }))
        .turn((t) => t.tool('bash', { command: 'ps -e -o comm= | grep -c "^sleep$"' }))
        .text('Done.'),
    );
    const project = servedProject(server);
    const operator = join(project.configDir, 'allow-bash.json');
    writeFileSync(operator, JSON.stringify({ allow: ['bash'] }));
    const run = await cadreIn(project, ['-p', 'work', '--yes', '--permissions', operator], {
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    const [one, two, sleeps] = [1, 2, 3].map((i) => toolResults(server.requests[i]).at(-1)?.text ?? '');
    // The warm server's bash and the call's: the call ran inside a long-lived sandbox.
    expect(one).toBe('one\n2\n[exit code 0]');
    expect(two).toBe('two\nstarted\n[exit code 0]');
    // The `&` child of the previous call ended with it.
    expect(sleeps).toBe('0\n[exit code 1]');
    await vi.waitFor(() => expect(pgrep(project.dir)).toEqual([]));
  });

  /**
   * A session whose second bash call runs `sleep <sleep>` until it is killed, the first answer taking
   * `firstAnswerMs`: cadre is live in that call when this returns.
   */
  async function sessionInALongCall(sleep: string, firstAnswerMs = 0) {
    const server = await scriptedServer(
      script()
        .turn((t) => t.delay(firstAnswerMs).tool('bash', { command: 'echo warm' }))
        .turn((t) => t.tool('bash', { command: `touch started; sleep ${sleep}` }))
        .text('never'),
    );
    const project = servedProject(server);
    const operator = join(project.configDir, 'allow-bash.json');
    writeFileSync(operator, JSON.stringify({ allow: ['bash'] }));
    const live = startCadre(project, ['-p', 'work', '--yes', '--permissions', operator]);
    await vi.waitFor(() => expect(existsSync(project.path('started'))).toBe(true), { timeout: 30_000 });
    return { project, live };
  }

  it('SIGKILL of cadre during a call ends the sandbox and the command in it', async () => {
    const marker = `${process.pid}${Date.now() % 100000}`;
    const { project, live } = await sessionInALongCall(`7${marker}`);
    expect(pgrep(`sleep 7${marker}`)).toHaveLength(1);
    // The server's bwrap names the project in its mounts.
    expect(pgrep(project.dir).some((line) => line.includes('bwrap'))).toBe(true);
    live.child.kill('SIGKILL');
    await live.exited;
    await vi.waitFor(() => expect([...pgrep(project.dir), ...pgrep(`sleep 7${marker}`)]).toEqual([]));
  });

  it('SIGKILL of cadre during a call on a server from its launcher ends the launcher, the sandbox and the command', async () => {
    const marker = `${process.pid}${Date.now() % 100000}`;
    // The first answer's wait starts the launcher (and a first server directly, as it starts).
    const { project, live } = await sessionInALongCall(`8${marker}`, 3000);
    const parentOf = (pid: string) =>
      execFileSync('ps', ['-o', 'ppid=', '-p', pid], { encoding: 'utf8' }).trim();
    const launchers = pgrep('sandbox launcher')
      .map((line) => line.split(' ')[0])
      .filter((pid) => parentOf(pid) === String(live.child.pid));
    expect(launchers).toHaveLength(1);
    // The second call's server: a bwrap the launcher started, not cadre.
    const servers = pgrep(project.dir).filter((line) => line.includes('bwrap'));
    expect(servers.map((line) => parentOf(line.split(' ')[0]))).toContain(launchers[0]);
    live.child.kill('SIGKILL');
    await live.exited;
    await vi.waitFor(() => {
      expect([...pgrep(project.dir), ...pgrep(`sleep 8${marker}`)]).toEqual([]);
      // Gone, or a zombie its new parent has yet to reap.
      expect(pgrep('sandbox launcher').filter((line) => line.startsWith(`${launchers[0]} `))).toEqual([]);
    });
  });

  it('a start spawns no bwrap probe once one succeeded for this bwrap; the warm server still runs the calls', async () => {
    const real = findOnPath('bwrap', process.env.PATH);
    if (!real) throw new Error('no bwrap on PATH');
    const server = await scriptedServer(
      script()
        .rule({ first_user: 'hi' })
        .text('hi')
        .rule({ first_user: 'work' })
        .turn((t) => t.tool('bash', { command: 'echo boxed > boxed.txt && cat boxed.txt' }))
        .text('Done.'),
    );
    const project = servedProject(server);
    // Outside the project, removed with it.
    const bin = join(project.configDir, 'wrapped-bin');
    const log = join(project.configDir, 'bwrap-runs.log');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'bwrap'),
      `#!/bin/sh\ncase "$*" in *--norc*) echo server ;; *) echo probe ;; esac >> ${log}\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: join(project.configDir, 'cache') };
    // A slow answer may start the warm server meanwhile; the probe runs once only.
    const runs = (kind: string) =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line === kind).length
        : 0;
    expect((await cadreIn(project, ['-p', 'hi'], { env })).code).toBe(0);
    expect(runs('probe')).toBe(1);
    expect((await cadreIn(project, ['-p', 'hi'], { env })).code).toBe(0);
    expect(runs('probe')).toBe(1);
    const operator = join(project.configDir, 'allow-bash.json');
    writeFileSync(operator, JSON.stringify({ allow: ['bash'] }));
    expect((await cadreIn(project, ['-p', 'work', '--yes', '--permissions', operator], { env })).code).toBe(
      0,
    );
    expect(toolResults(server.requests[3]).at(-1)?.text).toBe('boxed\n[exit code 0]');
    expect(readFileSync(project.path('boxed.txt'), 'utf8')).toBe('boxed\n');
    expect(runs('probe')).toBe(1);
    expect(runs('server')).toBeGreaterThanOrEqual(1);
  });
});
