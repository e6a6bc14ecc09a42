/// <reference path="../profile/text.d.ts" />
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import LAUNCHER_SCRIPT from './launcher.js.txt';
import { forgetGroup, killGroup, trackGroup } from './process-groups.js';

/** What a warm server's process reports. */
export interface ServerIo {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** It could not be started, or its starter went away. */
  error(message: string): void;
  /** It exited and its output was all read. */
  closed(code: number | null, signal: NodeJS.Signals | null): void;
}

/** A started `bwrap` of a warm server, as its WarmServer drives it. */
export interface ServerProcess {
  write(data: Buffer): void;
  /** Kills its process group (bwrap and the sandbox's first process). */
  kill(): void;
  /** While busy it keeps cadre's event loop alive; while idle it does not. */
  hold(busy: boolean): void;
}

/** Starts `bwrap args` in `cwd` with `env`, in a process group of its own, with stdio piped. */
export type ServerStarter = (
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  io: ServerIo,
) => ServerProcess;

/** Starts the server from cadre's own thread (which waits for the fork): the fallback without a launcher. */
export function spawnServer(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  io: ServerIo,
): ServerProcess {
  // Its own process group, so a terminal's Ctrl-C reaches cadre and not the sandbox.
  const child = spawn('bwrap', args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  trackGroup(child.pid);
  child.stdout?.on('data', (chunk: Buffer) => io.stdout(chunk));
  child.stderr?.on('data', (chunk: Buffer) => io.stderr(chunk));
  child.stdin?.on('error', () => {
    // A dead server's stdin: the close handler reports it.
  });
  child.once('error', (error) => io.error(error.message));
  // `close`, not `exit`: bwrap's complaint on stderr may arrive after its exit.
  child.once('close', (code, signal) => {
    forgetGroup(child.pid);
    io.closed(code, signal);
  });
  return {
    write: (data) => child.stdin?.write(data),
    kill: () => {
      if (child.pid !== undefined) killGroup(child.pid);
    },
    hold: (busy) => {
      const method = busy ? 'ref' : 'unref';
      child[method]();
      for (const stream of [child.stdin, child.stdout, child.stderr])
        (stream as unknown as Socket | null)?.[method]?.();
    },
  };
}

type LauncherMessage =
  | { type: 'ready'; id?: undefined }
  | { type: 'started'; id: number; pid: number }
  | { type: 'fd'; id: number; fd: number }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string };

/** One server started through the launcher: its sockets arrive after it started. */
class LaunchedServer implements ServerProcess {
  pid: number | undefined;
  private stdin: Socket | undefined;
  private readonly sockets: Socket[] = [];
  private pending: Buffer[] = [];
  private openOutputs = 2;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private killed = false;
  private busy = false;
  over = false;

  constructor(
    private readonly io: ServerIo,
    private readonly held: (busy: boolean) => void,
  ) {}

  write(data: Buffer): void {
    if (this.stdin) this.stdin.write(data);
    else this.pending.push(data);
  }

  kill(): void {
    this.killed = true;
    if (this.pid !== undefined && !this.over) killGroup(this.pid);
  }

  hold(busy: boolean): void {
    if (busy === this.busy) return;
    this.busy = busy;
    this.held(busy);
    for (const socket of this.sockets) socket[busy ? 'ref' : 'unref']();
  }

  started(pid: number): void {
    this.pid = pid;
    trackGroup(pid);
    if (this.killed) killGroup(pid);
  }

  socket(fd: number, socket: Socket): void {
    this.sockets.push(socket);
    if (!this.busy) socket.unref();
    if (fd === 0) {
      this.stdin = socket;
      socket.on('error', () => {
        // A dead server's stdin: the exit reports it.
      });
      for (const data of this.pending.splice(0)) socket.write(data);
      return;
    }
    socket.on('data', (chunk: Buffer) => (fd === 1 ? this.io.stdout(chunk) : this.io.stderr(chunk)));
    socket.once('close', () => {
      this.openOutputs--;
      this.settle();
    });
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    forgetGroup(this.pid);
    this.exit = { code, signal };
    this.settle();
  }

  /** Ends it without its exit: it could not start, or the launcher went away (and its servers with it). */
  fail(message: string): void {
    if (this.over) return;
    this.end();
    this.io.error(message);
  }

  private settle(): void {
    if (this.over || !this.exit || this.openOutputs > 0) return;
    this.end();
    this.io.closed(this.exit.code, this.exit.signal);
  }

  private end(): void {
    this.over = true;
    this.hold(false);
    for (const socket of this.sockets) socket.destroy();
    // Not once reaped: its number may be another process's by now.
    if (this.pid !== undefined && !this.exit) killGroup(this.pid);
  }
}

/**
 * A long-lived helper process (`node -e`, outside any sandbox, started with the first server started
 * ahead) that spawns the warm servers' bwrap and passes their stdio back as sockets over its IPC channel
 * (issue 17): a spawn from cadre itself blocks its thread for the fork of the whole process (8 ms on a
 * quiet 2-core machine, 30-40 ms on a busy one), which would land in a turn. Each server is still a fresh
 * bwrap that runs one call; cadre kills its process group itself. When cadre ends, however it ends, the
 * launcher's stdin closes and it kills every server it started. Until it is ready, or if it cannot be
 * started, servers are spawned directly.
 */
export class ServerLauncher {
  private child: ChildProcess | undefined;
  private broken = false;
  private nextId = 1;
  private readonly servers = new Map<number, LaunchedServer>();
  /** It said it is ready: cadre sends nothing before. */
  ready = false;
  private busy = 0;

  /**
   * The starter: through the launcher once it is ready, directly until then (the first server, started
   * while the first model call is out and cadre's thread is idle, does not wait for the launcher's start).
   */
  readonly start: ServerStarter = (args, cwd, env, io) => {
    const launcher = this.child;
    if (!launcher || !this.ready) return spawnServer(args, cwd, env, io);
    const id = this.nextId++;
    const server = new LaunchedServer(io, (busy) => this.hold(busy ? 1 : -1));
    this.servers.set(id, server);
    // With a callback a failed send is reported to it, not as an `error` event of the launcher.
    launcher.send({ id, file: 'bwrap', args, cwd, env }, (error) => {
      if (error) this.lost();
    });
    return server;
  };

  /** Ends the launcher (and, through it, whatever it started that cadre did not kill already). */
  close(): void {
    this.broken = true;
    // Not ready yet, it started nothing: it goes at once, not once it has loaded only to stop.
    if (!this.ready) this.child?.kill('SIGKILL');
    else this.child?.stdin?.destroy();
    this.fail('the session ended');
  }

  /**
   * Starts the launcher, if not yet. Only ahead of a server started ahead: its start (a Node process) is
   * not to compete with a call that waits for its server.
   */
  boot(): void {
    if (this.child || this.broken) return;
    try {
      // No NODE_OPTIONS: a preload of cadre's own is not the launcher's.
      const child = spawn(process.execPath, ['-e', LAUNCHER_SCRIPT], {
        // Its stdin is how it learns that cadre is gone, however cadre ended.
        stdio: ['pipe', 'ignore', 'ignore', 'ipc'],
        env: { PATH: process.env.PATH },
      });
      child.on('message', (message: LauncherMessage, handle?: Socket) => this.onMessage(message, handle));
      child.on('error', () => this.lost());
      child.stdin?.on('error', () => {
        // It died: its exit reports it.
      });
      child.once('exit', () => this.lost());
      this.child = child;
      this.hold(0);
    } catch {
      this.broken = true;
    }
  }

  private onMessage(message: LauncherMessage, handle?: Socket): void {
    if (message.type === 'ready') {
      this.ready = true;
      return;
    }
    const server = this.servers.get(message.id);
    if (!server || server.over) {
      handle?.destroy();
      return;
    }
    switch (message.type) {
      case 'started':
        server.started(message.pid);
        break;
      case 'fd':
        if (handle) server.socket(message.fd, handle);
        break;
      case 'exit':
        this.servers.delete(message.id);
        server.exited(message.code, message.signal);
        break;
      case 'error':
        this.servers.delete(message.id);
        server.fail(message.message);
    }
  }

  /**
   * The launcher is gone, or cannot be told anything: so are its servers (bwrap dies with its parent, and
   * a launcher still alive ends them when its stdin closes); they end as killed.
   */
  private lost(): void {
    this.broken = true;
    this.child?.stdin?.destroy();
    this.child = undefined;
    this.fail('the sandbox launcher exited');
  }

  private fail(message: string): void {
    const servers = [...this.servers.values()];
    this.servers.clear();
    for (const server of servers) server.fail(message);
  }

  /** The launcher keeps cadre alive only while a server of it is busy (its exit is still to come). */
  private hold(change: number): void {
    this.busy += change;
    const method = this.busy > 0 ? 'ref' : 'unref';
    this.child?.[method]();
    this.child?.channel?.[method]();
    (this.child?.stdin as unknown as Socket | null)?.[method]();
  }
}
