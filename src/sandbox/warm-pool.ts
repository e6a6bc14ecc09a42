import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { ServerLauncher, type ServerStarter } from './server-process.js';
import { type CallEnding, WarmServer } from './warm-server.js';

/** Spare servers kept per session: the project's and a writer's or two; more are stopped, oldest first. */
const MAX_IDLE = 3;
/** A spare server older than this is stopped: a session that stopped calling bash gives its memory back. */
const IDLE_MS = 5 * 60_000;

/**
 * One `bash` call on a warm server, shaped like the ChildProcess the per-call path gives (stdout and stderr
 * streams in utf8, `exit` then `close`, exitCode), so the bash tool treats both alike. A server that
 * fails to start hands the call to `fallback` (a per-call spawn) before any output was seen.
 */
export class WarmCall extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly pid = undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** The per-call process that took over, if the server could not start. */
  fallbackChild?: ChildProcess;
  private stopServer: (() => void) | undefined;
  private over = false;

  constructor() {
    super();
    this.stdout.setEncoding('utf8');
    this.stderr.setEncoding('utf8');
  }

  /** Ends the call and everything it started: its server is stopped (a fresh one serves the next call). */
  stop(): void {
    if (this.fallbackChild) return;
    if (!this.over) this.stopServer?.();
  }

  /** @internal The pool's side. */
  attach(stopServer: () => void): void {
    this.stopServer = stopServer;
  }

  /** @internal */
  finish(ending: CallEnding): void {
    if (this.over) return;
    this.over = true;
    if (ending.kind === 'exit') this.exitCode = ending.code;
    else this.signalCode = 'SIGKILL';
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', this.exitCode, this.signalCode);
    // `close` after the streams have delivered what they hold, as a child process's does.
    let open = 2;
    const closed = () => {
      if (--open === 0) this.emit('close', this.exitCode, this.signalCode);
    };
    this.stdout.once('end', closed);
    this.stderr.once('end', closed);
    this.stdout.resume();
    this.stderr.resume();
  }

  /** @internal The server never started: the per-call process answers instead, with its own events. */
  adopt(child: ChildProcess): void {
    this.fallbackChild = child;
    child.stdout?.pipe(this.stdout);
    child.stderr?.pipe(this.stderr);
    child.once('error', (error) => {
      this.over = true;
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    child.once('exit', (code, signal) => {
      this.over = true;
      this.exitCode = code;
      this.signalCode = signal;
      this.emit('exit', code, signal);
    });
    child.once('close', (code, signal) => this.emit('close', code, signal));
  }
}

/** What identifies a server: its policy and the exact bwrap arguments and environment it gave. */
export interface ServerSpec {
  bwrapArgs: string[];
  env: NodeJS.ProcessEnv;
  /** Where the server itself starts (the policy's root); each call enters its own cwd. */
  root: string;
  /**
   * The policy the arguments were made from. When the same policy gives other arguments or environment
   * (a hidden path appeared), the servers made for the old ones are stale: stopped, not kept.
   */
  policy: string;
}

function keyOf(spec: ServerSpec): string {
  const env = Object.entries(spec.env)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([spec.bwrapArgs, env, spec.root, spec.policy]);
}

export interface WarmPoolOptions {
  now?: () => number;
  /** Idle servers kept; more are stopped, oldest first. */
  maxIdle?: number;
  /** An idle server is stopped after this long. */
  idleMs?: number;
  /** A server died before it was ready (bwrap refused): the call runs per call instead. */
  onStartFailure?: (error: string) => void;
  /** How servers are started; by default through a launcher process of the pool's own. */
  start?: ServerStarter;
}

interface Idle {
  key: string;
  policy: string;
  server: WarmServer;
  since: number;
}

/**
 * The warm servers of one session (SPEC 9, issue 17). A call takes an idle server started for exactly its
 * sandbox, or starts one; a server runs one call and is then stopped, and a fresh one is started for the
 * next call while the model works (the cost of bwrap's start moves off the call). Parallel calls use
 * several. A policy whose
 * arguments changed since (a hidden or read-only path that appeared) gets a new server and its servers of
 * the old arguments are stopped, idle ones at once and busy ones when their call ends: no server that could
 * still see what is now hidden is kept.
 */
export class WarmPool {
  private idle: Idle[] = [];
  /** The newest server key of each policy. */
  private readonly current = new Map<string, string>();
  private readonly live = new Set<WarmServer>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly now: () => number;
  private readonly maxIdle: number;
  private readonly idleMs: number;
  private readonly onStartFailure: (error: string) => void;
  private readonly launcher: ServerLauncher | undefined;
  private readonly startServer: ServerStarter;

  constructor(options: WarmPoolOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxIdle = options.maxIdle ?? MAX_IDLE;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.onStartFailure = options.onStartFailure ?? (() => {});
    this.launcher = options.start ? undefined : new ServerLauncher();
    this.startServer = options.start ?? (this.launcher as ServerLauncher).start;
  }

  /** Runs `command` in `cwd` on a server for `spec`; `fallback` spawns it per call if no server starts. */
  run(spec: ServerSpec, command: string, cwd: string, fallback: () => ChildProcess): WarmCall {
    const call = new WarmCall();
    const key = this.currentKey(spec);
    const server = this.closed ? undefined : (this.take(key) ?? this.start(spec));
    if (!server) {
      call.adopt(fallback());
      return call;
    }
    call.attach(() => server.kill());
    server.run(command, cwd, {
      stdout: (chunk) => call.stdout.write(chunk),
      stderr: (chunk) => call.stderr.write(chunk),
      end: (ending) => {
        if (ending.kind === 'unstarted') {
          this.onStartFailure(server.startError ?? 'the server did not start');
          call.adopt(fallback());
          return;
        }
        // As a spawn in a missing directory fails.
        if (ending.kind === 'no-cwd' && call.listenerCount('error') > 0)
          call.emit(
            'error',
            Object.assign(new Error(`spawn bash ENOENT (no directory ${cwd})`), { code: 'ENOENT' }),
          );
        // One call per server: what this call left in its sandbox (a process that took its server over by
        // ptrace, files in its private /tmp) goes with it, as with a fresh bwrap per call. The next call's
        // server starts now (through the launcher: cadre's thread does not wait for the fork) while the
        // model reads this call's result; started during the call, its setup would compete with the command.
        server.kill();
        setImmediate(() => this.prewarm(spec));
        call.finish(ending);
      },
    });
    return call;
  }

  /** Starts a server for `spec` ahead of the first call, unless one is already waiting. */
  prewarm(spec: ServerSpec): void {
    if (this.closed) return;
    const key = this.currentKey(spec);
    if (this.idle.some((entry) => entry.key === key)) return;
    this.launcher?.boot();
    this.release(key, spec.policy, this.start(spec));
  }

  /** Stops every server (the session is over). */
  close(): void {
    this.closed = true;
    clearTimeout(this.sweepTimer);
    this.idle = [];
    for (const server of [...this.live]) server.kill();
    this.launcher?.close();
  }

  /** How many servers are alive (tests and the bench). */
  get size(): number {
    return this.live.size;
  }

  private start(spec: ServerSpec): WarmServer {
    const server = new WarmServer(
      spec.bwrapArgs,
      spec.root,
      spec.env,
      (dead) => {
        this.live.delete(dead);
        this.idle = this.idle.filter((entry) => entry.server !== dead);
      },
      this.startServer,
    );
    this.live.add(server);
    return server;
  }

  private take(key: string): WarmServer | undefined {
    const at = this.idle.findLastIndex((entry) => entry.key === key && entry.server.state !== 'dead');
    if (at < 0) return undefined;
    const [entry] = this.idle.splice(at, 1);
    return entry.server;
  }

  /** The key of `spec`, now its policy's newest: idle servers of that policy's older keys are stopped. */
  private currentKey(spec: ServerSpec): string {
    const key = keyOf(spec);
    if (this.current.get(spec.policy) !== key) {
      this.current.set(spec.policy, key);
      for (const entry of this.idle.filter((e) => e.policy === spec.policy && e.key !== key))
        entry.server.kill();
    }
    return key;
  }

  private release(key: string, policy: string, server: WarmServer): void {
    if (this.closed || this.current.get(policy) !== key) {
      server.kill();
      return;
    }
    this.idle.push({ key, policy, server, since: this.now() });
    while (this.idle.length > this.maxIdle) this.idle.shift()?.server.kill();
    this.scheduleSweep();
  }

  private scheduleSweep(): void {
    if (this.sweepTimer || this.idle.length === 0) return;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = undefined;
      const cutoff = this.now() - this.idleMs;
      for (const entry of this.idle.filter((e) => e.since <= cutoff)) entry.server.kill();
      this.scheduleSweep();
    }, this.idleMs);
    this.sweepTimer.unref();
  }
}
