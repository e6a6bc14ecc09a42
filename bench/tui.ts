import { realpathSync } from 'node:fs';
import { spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { openSessionStore } from '../src/session/store.js';
import { benchProject, CADRE_BIN, median, now } from './cli-run.js';

const { Terminal } = xterm;

export interface TuiResult {
  runs: number;
  /** Spawn of `cadre` in a pty to the first frame showing the input ready for typing. */
  firstFrameMs: number;
  /** Messages in the resumed transcript during the keystroke measurement. */
  transcriptMessages: number;
  keystrokes: number;
  /** A key written to the pty to that key shown on the screen. */
  keystrokeEchoMs: number;
}

const READY = 'ask anything';

/** cadre in a pseudo-terminal with a headless xterm behind it; resolves waits when the screen matches. */
function startTerminal(dir: string, configDir: string, args: string[]) {
  const term = new Terminal({ cols: 100, rows: 30, allowProposedApi: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CI') env[k] = v;
  Object.assign(env, { CADRE_CONFIG_DIR: configDir, TERM: 'xterm-256color', LANG: 'C.UTF-8' });
  const spawnedAt = now();
  const pty = spawn(process.execPath, [CADRE_BIN, ...args], {
    cols: 100,
    rows: 30,
    cwd: dir,
    env,
    name: 'xterm',
  });
  const waiters = new Set<() => void>();
  pty.onData((data) =>
    term.write(data, () => {
      for (const w of waiters) w();
    }),
  );
  const screen = () => {
    const buffer = term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < term.rows; y++)
      rows.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return rows.join('\n');
  };
  const waitFor = (test: (s: string) => boolean, timeoutMs = 30_000) =>
    new Promise<number>((resolve, reject) => {
      const check = () => {
        if (!test(screen())) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(now());
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`bench: timed out; screen:\n${screen()}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      pty.onExit(() => resolve());
      pty.kill('SIGKILL');
    });
  return { spawnedAt, pty, screen, waitFor, stop };
}

/** A stored session of `count` messages (prompts and markdown answers with code) for `--continue` to open. */
function seedSession(configDir: string, projectRoot: string, count: number): void {
  const store = openSessionStore(configDir);
  try {
    const root = realpathSync(projectRoot);
    const session = store.createSession({ projectRoot: root, cwd: root, model: 'bench-model' });
    for (let turn = 0; turn < count / 2; turn++) {
      store.appendMessages(
        session.id,
        [
          { role: 'user', content: `question number ${turn}: what does the function do?` },
          {
            role: 'assistant',
            content: `Answer ${turn}: it **adds** two numbers.\n\n\`\`\`ts\nexport function add(a: number, b: number) {\n  return a + b;\n}\n\`\`\`\n\n- simple\n- pure`,
          },
        ],
        turn,
      );
    }
  } finally {
    store.close();
  }
}

/** Issue 12: pty spawn to the first frame with the input ready, and keystroke-to-echo with a long transcript. */
export async function benchTui(runs = 8, keystrokes = 30, transcriptMessages = 500): Promise<TuiResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'hi' }] }] });
  const project = benchProject(server);
  try {
    const firstFrames: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const tui = startTerminal(project.dir, project.configDir, []);
      const ready = await tui.waitFor((s) => s.includes(READY));
      // The first start creates the session database, as on any machine that has run cadre before.
      if (i > 0) firstFrames.push(ready - tui.spawnedAt);
      await tui.stop();
    }

    seedSession(project.configDir, project.dir, transcriptMessages);
    const tui = startTerminal(project.dir, project.configDir, ['--continue']);
    await tui.waitFor((s) => s.includes(READY));
    const echoes: number[] = [];
    let typed = '';
    for (let i = 0; i < keystrokes; i++) {
      const char = String.fromCharCode(97 + (i % 26));
      typed += char;
      const expected = `› ${typed}`;
      const sentAt = now();
      tui.pty.write(char);
      const shownAt = await tui.waitFor((s) => s.includes(expected));
      echoes.push(shownAt - sentAt);
    }
    await tui.stop();
    return {
      runs,
      firstFrameMs: median(firstFrames),
      transcriptMessages,
      keystrokes,
      keystrokeEchoMs: median(echoes),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
