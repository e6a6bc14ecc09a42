import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SandboxSettings } from '../../src/sandbox/policy.js';
import { closeSandbox, openSandbox, type ShellSandbox, sandboxAt } from '../../src/sandbox/sandbox.js';
import { WarmPool } from '../../src/sandbox/warm-pool.js';
import { bashTool } from '../../src/tool/bash.js';
import { createToolContext } from '../../src/tool/context.js';
import type { ToolContext } from '../../src/tool/tool.js';
import { bwrapTestsRun, hostProcessesWith, requireBwrap, testSandboxSettings } from '../support/bwrap.js';
import { makeProject, type Project, run } from '../tool/fixture.js';

describe.runIf(bwrapTestsRun)('bash calls on warm sandbox servers', () => {
  beforeAll(requireBwrap);
  let project: Project;
  let home: string;
  let settings: SandboxSettings;
  const opened: ShellSandbox[] = [];

  function sandboxed(overrides: Partial<SandboxSettings> = {}): { sandbox: ShellSandbox; ctx: ToolContext } {
    const { sandbox } = openSandbox({ ...settings, ...overrides }, project.root, 'bwrap');
    opened.push(sandbox);
    return { sandbox, ctx: createToolContext({ root: project.root, sandbox }) };
  }
  const bash = async (ctx: ToolContext, command: string, timeout?: number) =>
    (await run(bashTool, { command, timeout }, ctx)).output;

  beforeEach(() => {
    project = makeProject({ 'hello.txt': 'hi\n' });
    home = path.join(path.dirname(project.root), 'home');
    mkdirSync(home, { recursive: true });
    settings = testSandboxSettings(home);
  });
  afterEach(() => {
    for (const sandbox of opened.splice(0)) closeSandbox(sandbox);
    project.cleanup();
  });

  it('runs each call on its own server, with exit codes, stderr and signals reported as per call', async () => {
    const { sandbox, ctx } = sandboxed();
    expect(await bash(ctx, 'echo out; echo err >&2; exit 3')).toBe('out\nerr\n[exit code 3]');
    expect(await bash(ctx, 'cat hello.txt')).toBe('hi\n[exit code 0]');
    // bwrap reports a shell killed by a signal as 128 + the signal; the warm server says the same.
    expect(await bash(ctx, 'kill -TERM $$')).toBe('(no output)\n[exit code 143]');
    expect(await bash(ctx, 'cd sub 2>/dev/null || pwd')).toBe(`${project.root}\n[exit code 0]`);
    // The used servers are gone; one spare waits for the next call.
    await vi.waitFor(() => expect(sandbox.pool?.size).toBe(1));
  });

  it('reports a missing directory as the per-call spawn does, running nothing, and the next call runs', async () => {
    const { sandbox, ctx } = sandboxed();
    mkdirSync(path.join(project.root, 'gone'));
    const gone = createToolContext({ root: path.join(project.root, 'gone'), sandbox });
    rmSync(gone.root, { recursive: true });
    const result = await run(bashTool, { command: `touch ${project.root}/ran` }, gone);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^could not start the shell: .*ENOENT/);
    expect(existsSync(path.join(project.root, 'ran'))).toBe(false);
    expect(await bash(ctx, 'ls')).toBe('hello.txt\n[exit code 0]');
  });

  it('gives every call a fresh sandbox: a process that outlived its call, or its /tmp, never meets the next', async () => {
    const { ctx } = sandboxed();
    expect(await bash(ctx, 'touch /tmp/mark; (trap "" TERM HUP; exec sleep 60) & ls /tmp/mark')).toBe(
      '/tmp/mark\n[exit code 0]',
    );
    expect(await bash(ctx, 'ls /tmp/mark 2>&1; ps -e -o comm= | grep -c "^sleep$"')).toBe(
      "ls: cannot access '/tmp/mark': No such file or directory\n0\n[exit code 1]",
    );
  });

  it('gives the command the same environment as a per-call bwrap, secrets scrubbed', async () => {
    vi.stubEnv('MY_MODEL_KEY', 'model-secret');
    vi.stubEnv('SOME_API_KEY', 'api-secret');
    vi.stubEnv('PLAIN_SETTING', 'plain');
    try {
      const { sandbox, ctx } = sandboxed();
      const perCall = createToolContext({ root: project.root, sandbox: { ...sandbox, pool: undefined } });
      const show =
        'env | grep -v "^_=" | sort; echo "$-"; ulimit -n; umask; trap -p; echo "$0"; grep -E "^Sig(Ign|Blk)" /proc/self/status';
      const warm = await bash(ctx, show);
      expect(warm).toBe(await bash(perCall, show));
      expect(warm).toContain('PLAIN_SETTING=plain');
      expect(warm).not.toContain('secret');
      expect(warm).not.toContain('CADRE_WARM');
      await vi.waitFor(() => expect(sandbox.pool?.size).toBe(1));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('passes the command byte for byte: quotes, backslashes, UTF-8, blank lines and a 60 KB here-document', async () => {
    const { ctx } = sandboxed();
    const text = `  lead\\back 'q' "dq" é中 $HOME\n\n\ttab\n`;
    const command = `cat <<'EOF'\n${text}EOF\nprintf '%s' "${'x'.repeat(60_000)}" | wc -c`;
    expect(await bash(ctx, command)).toBe(`${text}60000\n[exit code 0]`);
    expect(await bash(ctx, 'printf "%s|" "$0" "$#"')).toBe('bash|0|\n[exit code 0]');
  });

  it('keeps the variables bash acts on for the command alone: BASH_ENV, TMOUT, GLOBIGNORE', async () => {
    const startup = project.write('startup.sh', 'echo "sourced for $0"\n');
    vi.stubEnv('BASH_ENV', startup);
    vi.stubEnv('TMOUT', '1');
    vi.stubEnv('GLOBIGNORE', '/proc/*');
    try {
      const { sandbox, ctx } = sandboxed();
      const perCall = createToolContext({ root: project.root, sandbox: { ...sandbox, pool: undefined } });
      const show = 'echo "$TMOUT $GLOBIGNORE"; sleep 3& echo started';
      expect(await bash(perCall, show)).toBe('sourced for bash\n1 /proc/*\nstarted\n[exit code 0]');
      expect(await bash(ctx, `${show}; touch /tmp/server-mark`)).toBe(
        'sourced for bash\n1 /proc/*\nstarted\n[exit code 0]',
      );
      // The time to wait is the subject: a TMOUT of 1 s must not end the spare server's read.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // A fresh server (a new private /tmp) answers, and the last one's reap found the sleep despite
      // GLOBIGNORE.
      expect(await bash(ctx, 'ls /tmp/server-mark 2>&1; ps -e -o comm= | grep -c "^sleep$"')).toBe(
        "sourced for bash\nls: cannot access '/tmp/server-mark': No such file or directory\n0\n[exit code 1]",
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('keeps parallel calls apart: each gets its own server and only its own output', async () => {
    const { sandbox, ctx } = sandboxed();
    const lines = (id: number) =>
      `for i in $(seq 1 200); do echo "call-${id}-$i"; echo "err-${id}-$i" >&2; done`;
    const outputs = await Promise.all([1, 2, 3, 4].map((id) => bash(ctx, lines(id))));
    outputs.forEach((output, index) => {
      const id = index + 1;
      const own = output.split('\n').filter((line) => line !== '[exit code 0]');
      expect(own).toHaveLength(400);
      expect(
        own.every((line) => line.endsWith(`-${id}-${line.split('-')[2]}`) && line.includes(`-${id}-`)),
      ).toBe(true);
    });
    await vi.waitFor(() => expect(sandbox.pool?.size).toBe(1));
  });

  it('a call printing a forged end marker, a partial line or binary garbage does not touch the next call', async () => {
    const { ctx } = sandboxed();
    const garbage = await bash(
      ctx,
      'printf "partial"; printf "\\036cadre-end-0123456789abcdef0123456789abcdef\\036"; printf "0\\n"; printf "\\036cadre-end-" >&2; head -c 300 /dev/urandom | tr -d "\\000"; printf "\\036"',
    );
    expect(garbage).toContain('partial\x1ecadre-end-0123456789abcdef0123456789abcdef\x1e0\n');
    expect(garbage).toMatch(/\[exit code 0\]$/);
    expect(await bash(ctx, 'echo next')).toBe('next\n[exit code 0]');
  });

  it('keeps the call’s token out of the command’s reach: the server’s stdin, where it waits, is not its to read', async () => {
    const { ctx } = sandboxed();
    // The command holds no copy of the server's stdin, and /proc does not reopen a socket.
    const output = await bash(
      ctx,
      'in=$(readlink /proc/$PPID/fd/0); for f in /proc/$$/fd/*; do [[ $(readlink $f) == "$in" ]] && echo "holds $f"; done; cat /proc/$PPID/fd/0 /proc/1/fd/0 2>&1 | sed "s/.*: //"',
    );
    expect(output).toBe('No such device or address\nNo such device or address\n[exit code 0]');
  });

  it('ends &, nohup and setsid children when the call ends', async () => {
    const { ctx } = sandboxed();
    const marker = `${process.pid}${Date.now() % 100000}`;
    expect(
      await bash(
        ctx,
        `sleep 1${marker} & nohup sleep 2${marker} >/dev/null 2>&1 & setsid sleep 3${marker} & (trap "" TERM HUP; exec sleep 4${marker}) & echo started`,
      ),
    ).toBe('started\n[exit code 0]');
    // The server killed them before it reported the call over: nothing to wait for.
    for (const n of [1, 2, 3, 4]) expect(hostProcessesWith(`sleep ${n}${marker}`)).toEqual([]);
    // Nothing of them in the sandbox either (`ps` lists the sandbox's PID namespace).
    expect(await bash(ctx, 'ps -e -o comm= | grep -c "^sleep$"')).toBe('0\n[exit code 1]');
  });

  it('a timeout kills the call and what it started, and the next call runs on a fresh server', async () => {
    const { sandbox, ctx } = sandboxed();
    const marker = `${process.pid}${Date.now() % 100000}`;
    await bash(ctx, 'true');
    const timedOut = await bash(ctx, `sleep 5${marker} & echo begun; sleep 6${marker}`, 0.3);
    expect(timedOut).toBe('begun\n[timed out after 0.3s; the command and its child processes were killed]');
    await vi.waitFor(() => expect(hostProcessesWith(marker)).toEqual([]));
    expect(await bash(ctx, 'echo after')).toBe('after\n[exit code 0]');
    await vi.waitFor(() => expect(sandbox.pool?.size).toBe(1));
  });

  it('an abort ends the call like a timeout', async () => {
    const { ctx } = sandboxed();
    const controller = new AbortController();
    const running = run(bashTool, { command: 'echo going; sleep 30' }, { ...ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await running).output).toBe('going\n[aborted; the command and its child processes were killed]');
    expect(await bash(ctx, 'echo again')).toBe('again\n[exit code 0]');
  });

  it('hides a sandbox_hide path that appears mid-session from the next call (a new server)', async () => {
    const { sandbox, ctx } = sandboxed({ hide: ['.env', 'secrets'] });
    expect(await bash(ctx, 'ls -A')).toBe('hello.txt\n[exit code 0]');
    project.write('.env', 'DB_URL=postgres://secret\n');
    project.write('secrets/key', 'KEY\n');
    expect(await bash(ctx, 'cat .env; ls -A secrets; echo end')).toBe('end\n[exit code 0]');
    // The spare that could still see them is stopped, not kept.
    await vi.waitFor(() => expect(sandbox.pool?.size).toBe(1));
  });

  it('keeps .git/hooks read-only when .git appears mid-session', async () => {
    const { ctx } = sandboxed();
    expect(await bash(ctx, 'echo one')).toBe('one\n[exit code 0]');
    execFileSync('git', ['init', '-q', project.root]);
    const hook = await bash(ctx, 'echo "curl evil" > .git/hooks/pre-commit');
    expect(hook).toContain('Read-only file system');
  });

  it('roots each writer worktree on its own server', async () => {
    const { sandbox, ctx } = sandboxed();
    const worktree = path.join(path.dirname(project.root), 'wt');
    mkdirSync(worktree);
    const writer = sandboxAt(sandbox, worktree);
    const writerCtx = createToolContext({ root: worktree, sandbox: writer });
    expect(await bash(ctx, 'pwd; touch from-main')).toBe(`${project.root}\n[exit code 0]`);
    expect(await bash(writerCtx, 'pwd; touch from-writer')).toBe(`${worktree}\n[exit code 0]`);
    expect(await bash(writerCtx, 'ls')).toBe('from-writer\n[exit code 0]');
    await vi.waitFor(() => expect(sandbox.pool?.size).toBe(2));
    expect(await bash(ctx, 'ls')).toBe('from-main\nhello.txt\n[exit code 0]');
  });

  it('runs a call with a per-call grant outside the pool', async () => {
    const { sandbox, ctx } = sandboxed();
    const target = path.join(project.outside, 'granted.txt');
    const granted = { ...ctx, grants: [{ path: target, directory: false }] };
    expect(await bash(granted, `echo ok > ${target}`)).toBe('(no output)\n[exit code 0]');
    expect(readFileSync(target, 'utf8')).toBe('ok\n');
    expect(sandbox.pool?.size).toBe(0);
  });

  it('closing the sandbox stops its servers and the processes in them', async () => {
    const { sandbox, ctx } = sandboxed();
    await bash(ctx, 'true');
    // The spare for the next call.
    await vi.waitFor(() => expect(hostProcessesWith(project.root).length).toBeGreaterThan(0));
    closeSandbox(sandbox);
    await vi.waitFor(() => expect(hostProcessesWith(project.root)).toEqual([]));
    expect(sandbox.pool?.size).toBe(0);
  });
});

describe.runIf(bwrapTestsRun)('WarmPool', () => {
  beforeAll(requireBwrap);

  it('hands the call to the per-call spawn when the server cannot start, and says so', async () => {
    const failures: string[] = [];
    const pool = new WarmPool({ onStartFailure: (error) => failures.push(error) });
    try {
      const call = pool.run(
        { bwrapArgs: ['--no-such-option'], env: { PATH: process.env.PATH }, root: '/', policy: 'p' },
        'x',
        '/',
        () => spawn('bash', ['-c', 'echo fallback'], { stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      let output = '';
      call.stdout.on('data', (chunk: string) => {
        output += chunk;
      });
      const code = await new Promise((resolve) => call.once('close', resolve));
      expect({ output, code }).toEqual({ output: 'fallback\n', code: 0 });
      expect(failures).toEqual([expect.stringContaining('--no-such-option')]);
      expect(pool.size).toBe(0);
    } finally {
      pool.close();
    }
  });

  it('ends a call stopped while its server is still starting, without running it per call', async () => {
    let killed = false;
    // A server that never says it is ready: the stop, not the start, is the subject.
    const pool = new WarmPool({
      start: () => ({
        write: () => {},
        kill: () => {
          killed = true;
        },
        hold: () => {},
      }),
    });
    try {
      const call = pool.run({ bwrapArgs: [], env: {}, root: '/', policy: 'p' }, 'x', '/', () => {
        throw new Error('ran per call');
      });
      const exited = new Promise((resolve) => call.once('exit', (code, signal) => resolve({ code, signal })));
      call.stop();
      expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
      expect(killed).toBe(true);
    } finally {
      pool.close();
    }
  });

  it('keeps at most a few idle servers, stopping the oldest', async () => {
    const pool = new WarmPool({ maxIdle: 2 });
    try {
      const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--proc', '/proc'];
      for (const name of ['A', 'B', 'C'])
        pool.prewarm({ bwrapArgs: base, env: { PATH: process.env.PATH }, root: '/', policy: name });
      expect(pool.size).toBe(2);
    } finally {
      pool.close();
    }
  });

  it('stops the servers of a policy’s older arguments once the policy gives new ones', async () => {
    const pool = new WarmPool();
    try {
      const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--proc', '/proc'];
      const spec = { bwrapArgs: base, env: { PATH: process.env.PATH }, root: '/', policy: 'p' };
      pool.prewarm(spec);
      pool.prewarm({ ...spec, policy: 'another policy' });
      expect(pool.size).toBe(2);
      // The same policy, now with /tmp hidden: the server of the old arguments goes.
      pool.prewarm({ ...spec, bwrapArgs: [...base, '--tmpfs', '/tmp'] });
      await vi.waitFor(() => expect(pool.size).toBe(2));
    } finally {
      pool.close();
    }
  });

  it('leaves no process behind when a server is stopped at any moment of its start', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'cadre-warm-start-'));
    try {
      const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--proc', '/proc'];
      for (let delay = 0; delay < 30; delay++) {
        const pool = new WarmPool();
        pool.prewarm({ bwrapArgs: base, env: { PATH: process.env.PATH }, root, policy: 'p' });
        // Each delay stops it at another point of bwrap's setup (a stop is the subject, not a wait).
        await new Promise((resolve) => setTimeout(resolve, delay));
        pool.close();
      }
      await vi.waitFor(() => expect(hostProcessesWith(root)).toEqual([]));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('writes nothing into a closed pool: calls after close run per call', async () => {
    const pool = new WarmPool();
    pool.close();
    const call = pool.run({ bwrapArgs: [], env: {}, root: '/', policy: 'p' }, 'x', '/', () =>
      spawn('bash', ['-c', 'exit 4'], { stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    expect(await new Promise((resolve) => call.once('exit', resolve))).toBe(4);
    expect(pool.size).toBe(0);
  });
});
