/// <reference path="../profile/text.d.ts" />
import { randomBytes } from 'node:crypto';
import { type ServerProcess, type ServerStarter, spawnServer } from './server-process.js';
import SERVER_SCRIPT from './warm-server.bash.txt';

/**
 * One warm bash server inside a bwrap started ahead of its call (issue 15/17: a fresh bwrap per call costs
 * more than the whole call). It runs one call: the server forks the call's bash at once, which waits for
 * the call (see run), enters its cwd and replaces itself with `bash -c command` (stdin /dev/null). The
 * server waits for it, then SIGKILLs every other process left in its PID namespace (`&`, `nohup` and
 * `setsid` stragglers alike: what a per-call PID namespace did), and only then reads the call's random
 * token, which followed the call, and writes it on stderr and `token status` on stdout.
 * Nothing but the server is alive to write after the token, so a call's bytes never run into another's,
 * and a command cannot forge the token, which it never sees.
 *
 * Everything the server's bash does for a call that does not depend on the call (the fork, loading the
 * code of the cd, the reads and the reap) happens before the call comes, while the model is answering: on
 * the call's way there is the command's own bash, the reap and the two writes (issue 17: a page fault
 * costs ~30 us on a nested VM, and the fork and the first reap fault in some 200 pages).
 *
 * The child's environment is the server's, with what the server's own bash would change or act on put
 * back: those variables arrive renamed (`CADRE_WARM_*`, see SHELL_OWNED) and are restored just before the
 * exec, so the command's bash starts from exactly the environment a per-call spawn would give it. The script is
 * warm-server.bash.txt.
 *
 * What a call cannot do: read or inject requests (the server's stdio are sockets, which `/proc/N/fd` does
 * not reopen), outlive its call (the reap), or write into another call's output. A server runs one call
 * and is then stopped (warm-pool.ts): where ptrace between processes of one user is allowed (no Yama, or
 * `ptrace_scope` 0) a call could attach to its own server, and a server reused for a later call would
 * carry that call's hold over into it.
 */

/**
 * The variables the server's own bash would rewrite (`PWD`, `OLDPWD`, `SHLVL`) or act on (a `BASH_ENV` to
 * source, a `TMOUT` that ends its `read`, a `GLOBIGNORE` that hides processes from its reap, …), carried
 * through under other names; warm-server.bash.txt lists the same names.
 */
const SHELL_OWNED = [
  'PWD',
  'OLDPWD',
  'SHLVL',
  'BASH_ENV',
  'ENV',
  'GLOBIGNORE',
  'POSIXLY_CORRECT',
  'TMOUT',
  'CDPATH',
] as const;

/** What one call reports when it is over. */
export type CallEnding =
  | { kind: 'exit'; code: number }
  | { kind: 'killed' }
  /** The server could not enter the directory (it is missing): no command ran. */
  | { kind: 'no-cwd' }
  /** The server died before it was ready (bwrap refused): no command ran. */
  | { kind: 'unstarted' };

export interface CallSink {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  end(ending: CallEnding): void;
}

/**
 * Reads one stream of a server, splitting it at the current call's token: bytes before it are the call's,
 * the token itself ends the call's share of the stream. Bytes that might start the token are held back
 * until the next chunk says whether they do.
 */
export class TokenSplitter {
  private held = Buffer.alloc(0);
  private token: Buffer | undefined;

  constructor(private readonly deliver: (chunk: Buffer) => void) {}

  /** Starts watching for `token`. */
  expect(token: Buffer): void {
    this.token = token;
    this.held = Buffer.alloc(0);
  }

  /** Feeds a chunk; returns what follows the token once it is found, otherwise undefined. */
  feed(chunk: Buffer): Buffer | undefined {
    const token = this.token;
    if (!token) return undefined;
    const data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const at = data.indexOf(token);
    if (at >= 0) {
      if (at > 0) this.deliver(data.subarray(0, at));
      this.token = undefined;
      this.held = Buffer.alloc(0);
      return data.subarray(at + token.length);
    }
    let keep = Math.min(token.length - 1, data.length);
    while (keep > 0 && !token.subarray(0, keep).equals(data.subarray(data.length - keep))) keep--;
    if (data.length > keep) this.deliver(data.subarray(0, data.length - keep));
    this.held = Buffer.from(data.subarray(data.length - keep));
    return undefined;
  }

  /** The stream ended or the call was cut short: what was held back is the call's after all. */
  flush(): void {
    if (this.held.length > 0) this.deliver(this.held);
    this.held = Buffer.alloc(0);
    this.token = undefined;
  }
}

interface ActiveCall {
  sink: CallSink;
  stdoutDone: boolean;
  stderrDone: boolean;
  status?: string;
}

export type ServerState = 'starting' | 'idle' | 'busy' | 'dead';

/** The environment a server is started with: `env` with the shell-owned variables renamed. */
export function serverEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of SHELL_OWNED) {
    delete out[name];
    if (env[name] !== undefined) out[`CADRE_WARM_${name}`] = env[name];
  }
  return out;
}

export class WarmServer {
  state: ServerState = 'starting';
  /** Set when the server died before it was ready: bwrap refused (the caller falls back to a per-call spawn). */
  startError?: string;
  private readonly process: ServerProcess;
  private call: ActiveCall | undefined;
  private readonly out: TokenSplitter;
  private readonly err: TokenSplitter;
  private greeting = '';
  /** Stderr before the server said it is ready: bwrap's complaint, or the first call's early output. */
  private early: Buffer[] = [];
  private readonly onDeath: (server: WarmServer) => void;
  /** Ends this server's one call on both streams: 44 bytes, as the server reads it. */
  private readonly token = Buffer.from(`\x1ecadre-end-${randomBytes(16).toString('hex')}\x1e`);

  /** `bwrapArgs` are the sandbox's mounts and namespaces; the server adds the command. */
  constructor(
    bwrapArgs: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    onDeath: (server: WarmServer) => void,
    start: ServerStarter = spawnServer,
  ) {
    this.onDeath = onDeath;
    this.out = new TokenSplitter((chunk) => this.call?.sink.stdout(chunk));
    this.err = new TokenSplitter((chunk) => this.call?.sink.stderr(chunk));
    this.process = start(
      [
        ...bwrapArgs,
        '--die-with-parent',
        '--chdir',
        cwd,
        '--',
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        SERVER_SCRIPT,
      ],
      cwd,
      serverEnv(env),
      {
        stdout: (chunk) => this.onStdout(chunk),
        stderr: (chunk) => this.onStderr(chunk),
        error: (message) => this.die(message),
        closed: (code, signal) => this.die(`bwrap exited (${signal ?? `exit ${code}`})`),
      },
    );
    // While idle a server keeps no event loop alive: cadre exits when its work is done.
    this.process.hold(false);
  }

  /**
   * Hands the server its one call; it must be idle or starting (a call waits in the pipe until it is
   * ready). The call is the byte lengths of cwd and command (10 digits each), cwd, command, a newline and
   * the token: the call's bash reads the newline only once it is in cwd, so the server can tell a missing
   * directory by it; the token is the server's to read once the call's processes are gone.
   */
  run(command: string, cwd: string, sink: CallSink): void {
    this.call = { sink, stdoutDone: false, stderrDone: false };
    if (this.state === 'idle') this.state = 'busy';
    this.process.hold(true);
    this.out.expect(this.token);
    this.err.expect(this.token);
    const dir = Buffer.from(cwd);
    const body = Buffer.from(command);
    const lengths = `${String(dir.length).padStart(10, '0')}${String(body.length).padStart(10, '0')}`;
    this.process.write(Buffer.concat([Buffer.from(lengths), dir, body, Buffer.from('\n'), this.token]));
  }

  /** Ends the server and everything running in it (the PID namespace dies with its first process). */
  kill(): void {
    // The whole group: bwrap killed alone while still setting up leaves its child waiting for it forever,
    // outside any `--die-with-parent`.
    if (this.state !== 'dead') this.process.kill();
    this.die('killed', true);
  }

  private onStdout(chunk: Buffer): void {
    if (this.state === 'starting') {
      this.greeting += chunk.toString('latin1');
      const newline = this.greeting.indexOf('\n');
      if (newline < 0) return;
      const rest = Buffer.from(this.greeting.slice(newline + 1), 'latin1');
      this.greeting = '';
      this.state = this.call ? 'busy' : 'idle';
      for (const early of this.early.splice(0)) this.onStderr(early);
      if (rest.length === 0) return;
      chunk = rest;
    }
    const call = this.call;
    if (!call) return;
    if (call.stdoutDone) {
      call.status = (call.status ?? '') + chunk.toString('latin1');
    } else {
      const after = this.out.feed(chunk);
      if (after === undefined) return;
      call.stdoutDone = true;
      call.status = after.toString('latin1');
    }
    this.settle();
  }

  private onStderr(chunk: Buffer): void {
    if (this.state === 'starting') {
      this.early.push(chunk);
      return;
    }
    const call = this.call;
    if (!call || call.stderrDone) return;
    if (this.err.feed(chunk) !== undefined) call.stderrDone = true;
    this.settle();
  }

  /** The call is over once both streams reached its token and the status line is complete. */
  private settle(): void {
    const call = this.call;
    if (!call?.stdoutDone || !call.stderrDone || !call.status?.endsWith('\n')) return;
    this.call = undefined;
    this.state = 'idle';
    this.process.hold(false);
    const status = call.status.trim();
    call.sink.end(status === 'cwd' ? { kind: 'no-cwd' } : { kind: 'exit', code: Number(status) });
  }

  /** `stopped`: cadre killed it (a call stopped while its server was starting is over, not unstarted). */
  private die(reason: string, stopped = false): void {
    if (this.state === 'dead') return;
    const starting = this.state === 'starting' && !stopped;
    this.state = 'dead';
    this.process.hold(false);
    const call = this.call;
    this.call = undefined;
    if (starting) {
      const said = Buffer.concat(this.early).toString('utf8').trim();
      this.startError = said ? `${reason}: ${said}` : reason;
      call?.sink.end({ kind: 'unstarted' });
    } else if (call) {
      this.out.flush();
      this.err.flush();
      call.sink.end({ kind: 'killed' });
    }
    this.onDeath(this);
  }
}
