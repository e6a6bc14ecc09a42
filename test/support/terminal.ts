import { join } from 'node:path';
import { type IPty, spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { onTestFinished } from 'vitest';
import { REPO_ROOT } from './cli.js';

const { Terminal } = xterm;

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: '\r',
  escape: '\u001b',
  tab: '\t',
  backspace: '\u007f',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  ctrlC: '\u0003',
  ctrlO: '\u000f',
  ctrlD: '\u0004',
  /** What terminals with the kitty keyboard protocol send for Shift+Enter; others send ESC CR (Alt+Enter). */
  shiftEnter: '\u001b[13;2u',
  altEnter: '\u001b\r',
} as const;

export interface TerminalOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
}

/**
 * cadre running in a real pseudo-terminal, its output fed through a headless xterm so tests read the screen a
 * person would see. Waits poll that screen on every chunk of output until a condition holds (never a sleep).
 */
/** How long the output must pause after a match for the frame to count as whole. */
const FRAME_QUIET_MS = 30;
/** A match that holds while output keeps coming counts after this long. */
const FRAME_SETTLE_MAX_MS = 300;

export class TerminalSession {
  readonly pty: IPty;
  readonly term: InstanceType<typeof Terminal>;
  private readonly watchers = new Set<() => void>();
  private exitCode: number | null = null;
  private raw = '';
  readonly exited: Promise<number>;

  constructor(args: string[], options: TerminalOptions) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries({
      ...process.env,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...options.env,
    })) {
      if (value !== undefined) env[name] = value;
    }
    // ink draws nothing live when it believes it runs in CI; a pty is a terminal whatever the host is.
    delete env.CI;
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
    this.pty = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'cadre.js'), ...args], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: options.cwd,
      env,
    });
    this.pty.onData((data) => {
      this.raw += data;
      this.term.write(data, () => this.notify());
    });
    this.exited = new Promise((resolve) => {
      this.pty.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        this.notify();
        resolve(exitCode);
      });
    });
    onTestFinished(() => {
      if (this.exitCode === null) this.pty.kill('SIGKILL');
    });
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  /** The visible screen, one string per row, trailing spaces removed. */
  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++)
      out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  screen(): string {
    return this.lines().join('\n');
  }

  /** Everything the terminal holds, scrollback included. */
  history(): string {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buffer.length; y++) out.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return out.join('\n');
  }

  /** Everything cadre wrote, escape sequences included. */
  output(): string {
    return this.raw;
  }

  /**
   * Resolves once `condition` holds for the screen and the output has paused; rejects with the screen after
   * `timeoutMs`. The pause matters because a pty hands a frame over in pieces: a screen that first matches
   * may be the top of a frame whose rest is still in flight (it failed CI once). A pause of FRAME_QUIET_MS
   * ends the frame; output that never pauses (a stream of chunks) settles after FRAME_SETTLE_MAX_MS.
   */
  waitFor(condition: RegExp | ((screen: string) => boolean), timeoutMs = 45_000): Promise<string> {
    const test = typeof condition === 'function' ? condition : (screen: string) => condition.test(screen);
    return new Promise((resolve, reject) => {
      let quiet: NodeJS.Timeout | undefined;
      /** The screen of the latest match and when matching began, while the frame settles. */
      let match: { screen: string; since: number } | undefined;
      const finish = (screen: string) => {
        done();
        resolve(screen);
      };
      const check = () => {
        clearTimeout(quiet);
        const screen = this.screen();
        if (test(screen)) {
          match = { screen, since: match?.since ?? Date.now() };
          const left = FRAME_SETTLE_MAX_MS - (Date.now() - match.since);
          quiet = setTimeout(() => finish(screen), Math.max(0, Math.min(FRAME_QUIET_MS, left)));
        } else if (match) {
          // What matched was a passing state, and it was seen: the screen it was seen on.
          finish(match.screen);
        } else if (this.exitCode !== null) {
          done();
          reject(new Error(`cadre exited (${this.exitCode}) before ${condition}:\n${this.history()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${condition}; screen:\n${this.screen()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        clearTimeout(quiet);
        this.watchers.delete(check);
      };
      this.watchers.add(check);
      check();
    });
  }

  type(text: string): void {
    this.pty.write(text);
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.term.resize(cols, rows);
  }
}

/** `cadre <args>` in a real terminal, in a test project with its own global config dir. */
export function cadreTerminal(
  project: { dir: string; configDir: string },
  args: string[] = [],
  options: Omit<TerminalOptions, 'cwd'> = {},
): TerminalSession {
  return new TerminalSession(args, {
    ...options,
    cwd: project.dir,
    env: { CADRE_CONFIG_DIR: project.configDir, CADRE_RETRY_BASE_MS: '5', NO_COLOR: '1', ...options.env },
  });
}
