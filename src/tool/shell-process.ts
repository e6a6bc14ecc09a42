import { type ChildProcess, spawn } from 'node:child_process';
import type { WriteGrant } from '../sandbox/policy.js';
import { killGroup, trackGroup } from '../sandbox/process-groups.js';
import { type ShellSandbox, shellSpawn, warmSpec } from '../sandbox/sandbox.js';
import { type ServerSpec, WarmCall, type WarmPool } from '../sandbox/warm-pool.js';

/** Pagers and credential prompts would hang a command that has no terminal. */
const NON_INTERACTIVE_ENV = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };

/**
 * Starts `bash -c command` in the sandbox (bwrap's new PID namespace ends every process it started when
 * the shell exits, `&` and `nohup` ones included) as the leader of a new process group, so killing the
 * group ends the command, and without a PID namespace ends what it left behind.
 */
export function spawnShell(
  command: string,
  cwd: string,
  sandbox?: ShellSandbox,
  grants: readonly WriteGrant[] = [],
): ChildProcess {
  const { file, args, env } = shellSpawn(sandbox, command, cwd, grants);
  const child = spawn(file, args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...NON_INTERACTIVE_ENV },
  });
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  trackGroup(child.pid);
  return child;
}

/** A running command: a child process of its own, or a call on a warm sandbox server. */
export type ShellChild = ChildProcess | WarmCall;

/**
 * Starts a foreground `bash -c command`: on a warm sandbox server when the sandbox has one for this call
 * (it ends whatever the call started once the call's shell exits), otherwise as `spawnShell` does.
 */
export function startShell(
  command: string,
  cwd: string,
  sandbox?: ShellSandbox,
  grants: readonly WriteGrant[] = [],
): ShellChild {
  const warm = warmServer(sandbox, grants);
  // A NUL cannot be framed for the server; the per-call spawn refuses it with its usual error.
  if (!warm || command.includes('\0') || cwd.includes('\0')) return spawnShell(command, cwd, sandbox, grants);
  return warm.pool.run(warm.server, command, cwd, () => spawnShell(command, cwd, sandbox, grants));
}

/** Starts the warm server the first call in `cwd` will use, so that call finds it ready. */
export function prewarmShell(sandbox: ShellSandbox | undefined): void {
  const warm = warmServer(sandbox);
  warm?.pool.prewarm(warm.server);
}

/** The warm server a call runs on, with the environment a per-call spawn gives the command. */
function warmServer(
  sandbox: ShellSandbox | undefined,
  grants: readonly WriteGrant[] = [],
): { pool: WarmPool; server: ServerSpec } | undefined {
  const spec = warmSpec(sandbox, grants);
  if (!spec) return undefined;
  const { pool, ...server } = spec;
  return { pool, server: { ...server, env: { ...server.env, ...NON_INTERACTIVE_ENV } } };
}

/** Ends the command and every process in its group (also once it has exited: `&` children linger). */
export function killProcessGroup(child: ShellChild): void {
  if (child instanceof WarmCall) {
    if (child.fallbackChild) killProcessGroup(child.fallbackChild);
    else child.stop();
  } else if (child.pid !== undefined) killGroup(child.pid);
}

/** How long to wait for output after the shell exits while a process it left behind holds the pipes. */
const PIPE_GRACE_MS = 200;

/**
 * Resolves once the command is over: all output read, or the shell exited and its pipes stayed open
 * past a short grace (a backgrounded grandchild holds them), in which case they are let go.
 */
export function whenFinished(child: ShellChild): Promise<void> {
  return new Promise((resolve) => {
    let graceTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(graceTimer);
      resolve();
    };
    child.once('close', finish);
    child.once('error', finish);
    child.once('exit', () => {
      graceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
  });
}

/** Keeps the first and last part of a stream of output, counting what falls in between. */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private omitted = 0;

  constructor(
    private readonly headChars: number,
    private readonly tailChars: number,
  ) {}

  append(chunk: string): void {
    if (this.head.length < this.headChars) {
      const room = this.headChars - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === '') return;
    this.tail += chunk;
    if (this.tail.length > this.tailChars) {
      this.omitted += this.tail.length - this.tailChars;
      this.tail = this.tail.slice(this.tail.length - this.tailChars);
    }
  }

  text(): string {
    if (this.omitted === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.omitted} characters omitted ...]\n${this.tail}`;
  }
}
