import { resolve } from 'node:path';
import { render } from 'ink';
import type { RuntimeFlags } from '../agent/runtime.js';
import { reviewText } from '../agent/session-review.js';
import { printWarnings, requireProfile } from '../cli/bootstrap.js';
import { UsageError } from '../cli/errors.js';
import { ConfigError } from '../config/load.js';
import { openWorkspace } from '../config/workspace.js';
import type { SessionController } from '../controller/session-controller.js';
import type { ControllerState } from '../controller/types.js';
import type { SafetyFloor } from '../permission/decide.js';
import { PermissionRuleError } from '../permission/rules.js';
import { probeSandboxAhead } from '../sandbox/sandbox.js';
import type { SessionStore } from '../session/store.js';
import { App } from './app.js';
import { ProjectFiles } from './input/file-index.js';
import { historyFile, PromptHistory } from './input/history.js';
import { loadHighlighter } from './markdown/highlight.js';
import { PendingSession } from './pending-session.js';
import { TranscriptStore } from './store/transcript-store.js';
import { createTheme, detectCapabilities } from './theme.js';
import { askTrustAtStart } from './trust/ask-at-start.js';

export interface InteractiveOptions {
  /** Words given on the command line: the first prompt. */
  task: string[];
  continue?: boolean;
  resume?: string;
  agent?: string;
  model?: string;
  provider?: string;
  safety: SafetyFloor;
  permissions?: string;
  yes?: boolean;
  maxTurns?: number;
  cwd?: string;
  trustProject?: boolean;
}

function setRawMode(on: boolean): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(on);
}

const BRACKETED_PASTE_ON = '\u001b[?2004h';
const BRACKETED_PASTE_OFF = '\u001b[?2004l';

/** What the status line shows while the session opens behind the first frame. */
function startingState(projectRoot: string, flags: RuntimeFlags): ControllerState {
  return {
    seq: 0,
    sessionId: '',
    projectRoot,
    status: 'idle',
    turn: null,
    profile: flags.agent ?? null,
    prompt: null,
    planMode: false,
    safety: flags.safety,
    model: { label: 'starting', model: '', alias: null, contextWindow: 0 },
    effort: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    contextTokens: 0,
    subagents: [],
    batches: [],
    asks: [],
    queue: [],
    todos: [],
  };
}

/** Bad configuration or usage: reported as headless reports it, exit 2. */
function isBadInput(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof UsageError || error instanceof PermissionRuleError;
}

/**
 * `cadre` on a terminal: the interactive UI over one session controller. Configuration problems are reported
 * exactly as headless reports them (exit 2) before anything is drawn. A new session (runtime, SQLite,
 * tools) opens while the first frame is on screen, where text can be typed at once and what needs the
 * session waits for it (issue 17); a continued one opens first, so its conversation is in the first frame.
 * Returns the exit code.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  // Raw at once: keys typed while the session starts are kept as typed (no echo, Enter stays Enter).
  setRawMode(true);
  let workspace: ReturnType<typeof openWorkspace>;
  let flags: RuntimeFlags;
  let store: SessionStore | undefined;
  let opening: Promise<SessionController>;
  let controller: SessionController | undefined;
  const theme = createTheme(detectCapabilities(process.env, process.stdout.isTTY === true));
  try {
    workspace = openWorkspace(options.cwd, process.env, { trustProject: options.trustProject });
    const asked = await askTrustAtStart(workspace, theme);
    if (asked === 'quit') {
      setRawMode(false);
      return 0;
    }
    workspace = asked;
    // The question's own render leaves the terminal cooked: raw again, so keys typed now are kept as typed.
    setRawMode(true);
    printWarnings(workspace.warnings, process.stderr);
    requireProfile(workspace, options.agent);
    flags = {
      agent: options.agent,
      model: options.model,
      provider: options.provider,
      safety: options.safety,
      permissions: options.permissions === undefined ? undefined : resolve(options.permissions),
      yes: options.yes === true,
      maxTurns: options.maxTurns,
      continue: options.continue,
      resume: options.resume,
    };
    const opened = workspace;
    const openFlags = flags;
    opening = (async () => {
      const [{ SessionController }, { openSessionStore }] = await Promise.all([
        import('../controller/session-controller.js'),
        import('../session/store.js'),
        probeSandboxAhead(opened.loaded.config.sandbox ?? 'auto'),
      ]);
      store = openSessionStore(opened.loaded.globalDir);
      return SessionController.open({ workspace: opened, flags: openFlags, store, interactive: true });
    })();
    // Nothing waits on it until the UI is drawn; a failure is reported from there.
    opening.catch(() => undefined);
    if (options.continue || options.resume) controller = await opening;
  } catch (error) {
    store?.close();
    setRawMode(false);
    if (isBadInput(error)) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  const transcript = new TranscriptStore(
    controller?.snapshot() ?? startingState(workspace.loaded.projectRoot, flags),
  );
  transcript.add({ kind: 'welcome' });
  const history = PromptHistory.open(historyFile(workspace.loaded.globalDir, workspace.loaded.projectRoot));
  const files = new ProjectFiles(workspace.loaded.projectRoot);
  const initialPrompt = options.task.join(' ').trim() || undefined;

  process.stdout.write(BRACKETED_PASTE_ON);
  let app: ReturnType<typeof render> | undefined;
  // A terminal that goes away or a `kill` ends the session like /quit does.
  const onSignal = () => app?.unmount();
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  let subscription: { close(): void } | undefined;
  let failure: unknown;
  const attach = (session: SessionController) => {
    controller = session;
    transcript.opened(session.snapshot());
    // `--continue` / `--resume`: the conversation so far, as it went.
    transcript.replay(session.messages());
    subscription = session.subscribe((event) => transcript.apply(event));
  };
  try {
    if (controller) attach(controller);
    app = render(
      <App
        session={controller ?? new PendingSession(opening)}
        store={transcript}
        theme={theme}
        history={history}
        files={files}
        initialPrompt={initialPrompt}
      />,
      { exitOnCtrlC: false, patchConsole: true },
    );
    if (!controller) {
      const drawn = app;
      opening.then(attach, (error: unknown) => {
        failure = error;
        // The frame drawn meanwhile goes, so the error stands alone as it does headless.
        drawn.clear();
        drawn.unmount();
      });
    }
    if (theme.caps.colorLevel > 0) void loadHighlighter();
    await app.waitUntilExit();
    // The view may end before the session is open (Ctrl+C twice at once): it is closed as usual.
    if (failure === undefined && !controller)
      await opening.then(attach, (error: unknown) => (failure = error));
    if (failure !== undefined) {
      if (isBadInput(failure)) {
        process.stderr.write(`cadre: ${failure.message}\n`);
        return 2;
      }
      throw failure;
    }
    // `session_review`: the findings stay on the terminal after the UI is gone (SPEC 4.3).
    const review = await controller?.review();
    if (review) process.stdout.write(`${reviewText(review)}\n`);
    return 0;
  } finally {
    process.stdout.write(BRACKETED_PASTE_OFF);
    setRawMode(false);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    subscription?.close();
    await controller?.close();
    store?.close();
  }
}
