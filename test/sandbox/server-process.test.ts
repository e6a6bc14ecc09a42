import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ServerIo, ServerLauncher } from '../../src/sandbox/server-process.js';
import { bwrapTestsRun, hostProcessesWith, requireBwrap } from '../support/bwrap.js';

/** What a started server reported, and a promise for its end. */
function recorder() {
  const seen = { stdout: '', stderr: '', errors: [] as string[], closed: undefined as unknown };
  let ended: () => void = () => {};
  const over = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const io: ServerIo = {
    stdout: (chunk) => {
      seen.stdout += chunk.toString();
    },
    stderr: (chunk) => {
      seen.stderr += chunk.toString();
    },
    error: (message) => {
      seen.errors.push(message);
      ended();
    },
    closed: (code, signal) => {
      seen.closed = { code, signal };
      ended();
    },
  };
  return { seen, io, over };
}

function parentOf(pid: number): number {
  // The parent follows the command name's closing parenthesis and the state.
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
}

describe.runIf(bwrapTestsRun)('the sandbox launcher', () => {
  beforeAll(requireBwrap);
  const launchers: ServerLauncher[] = [];
  // bash --norc: its stdin is a socket, for which Debian's bash would read ~/.bashrc.
  const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--proc', '/proc'];

  async function readyLauncher(): Promise<ServerLauncher> {
    const launcher = new ServerLauncher();
    launchers.push(launcher);
    launcher.boot();
    await vi.waitFor(() => expect(launcher.ready).toBe(true), { timeout: 10_000 });
    return launcher;
  }
  /** Starts `echo up; exec sleep <seconds>` through `launcher` and waits for the `up`. */
  async function startSleeper(launcher: ServerLauncher, seconds: number, marker: string) {
    const recorded = recorder();
    launcher.start(
      [...base, '--', 'bash', '--norc', '-c', `echo up; exec sleep ${seconds} # ${marker}`],
      '/',
      { PATH: process.env.PATH },
      recorded.io,
    );
    await vi.waitFor(() => expect(recorded.seen.stdout).toBe('up\n'));
    return recorded;
  }
  afterEach(() => {
    for (const launcher of launchers.splice(0)) launcher.close();
  });

  it('starts a server directly until it is ready', async () => {
    const launcher = new ServerLauncher();
    launchers.push(launcher);
    launcher.boot();
    const { seen, io, over } = recorder();
    const marker = `direct-${process.pid}-${Date.now()}`;
    const server = launcher.start(
      [...base, '--', 'bash', '--norc', '-c', `exec sleep 30 # ${marker}`],
      '/',
      { PATH: process.env.PATH },
      io,
    );
    // bwrap itself is this process's child (the sandbox's processes are bwrap's).
    expect(hostProcessesWith(marker).map(parentOf)).toContain(process.pid);
    server.kill();
    await over;
    expect(seen.closed).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('starts servers from its own process and hands back their stdin, stdout, stderr and exit', async () => {
    const launcher = await readyLauncher();
    const marker = `launched-${process.pid}-${Date.now()}`;
    const { seen, io, over } = recorder();
    const server = launcher.start(
      [
        ...base,
        '--',
        'bash',
        '--norc',
        '-c',
        `read -r line; echo "out $line"; echo err >&2; sleep 0.2 # ${marker}`,
      ],
      '/',
      { PATH: process.env.PATH },
      io,
    );
    server.hold(true);
    server.write(Buffer.from('hello\n'));
    await vi.waitFor(() => expect(hostProcessesWith(marker).length).toBeGreaterThan(0));
    // Not cadre's child: the launcher forked it.
    expect(hostProcessesWith(marker).map(parentOf)).not.toContain(process.pid);
    await over;
    expect(seen).toEqual({
      stdout: 'out hello\n',
      stderr: 'err\n',
      errors: [],
      closed: { code: 0, signal: null },
    });
  });

  it('kills a server’s whole process group, and reports its exit', async () => {
    const launcher = await readyLauncher();
    const marker = `killed-${process.pid}-${Date.now()}`;
    const { seen, io, over } = recorder();
    const server = launcher.start(
      [...base, '--', 'bash', '--norc', '-c', `sleep 31 & echo up; wait # ${marker}`],
      '/',
      { PATH: process.env.PATH },
      io,
    );
    await vi.waitFor(() => expect(seen.stdout).toBe('up\n'));
    server.kill();
    await over;
    expect(seen.closed).toEqual({ code: null, signal: 'SIGKILL' });
    await vi.waitFor(() => expect(hostProcessesWith(marker)).toEqual([]));
  });

  it('when it ends, however it ends, its servers end too and are reported over', async () => {
    const launcher = await readyLauncher();
    const marker = `orphan-${process.pid}-${Date.now()}`;
    const { seen, over } = await startSleeper(launcher, 32, marker);
    const [launcherPid] = hostProcessesWith('sandbox launcher').filter(
      (pid) => parentOf(pid) === process.pid,
    );
    process.kill(launcherPid, 'SIGKILL');
    await over;
    expect(seen.errors).toEqual(['the sandbox launcher exited']);
    await vi.waitFor(() => expect(hostProcessesWith(marker)).toEqual([]));
    // Later servers start directly.
    const after = recorder();
    launcher.start([...base, '--', 'true'], '/', { PATH: process.env.PATH }, after.io);
    await after.over;
    expect(after.seen.closed).toEqual({ code: 0, signal: null });
  });

  it('ends its servers when cadre closes it', async () => {
    const launcher = await readyLauncher();
    const marker = `closed-${process.pid}-${Date.now()}`;
    const { seen } = await startSleeper(launcher, 33, marker);
    launcher.close();
    await vi.waitFor(() => expect(hostProcessesWith(marker)).toEqual([]));
    expect(seen.errors).toEqual(['the session ended']);
  });
});
