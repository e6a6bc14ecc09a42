import { render } from 'ink';
import type { RuntimeFlags } from '../agent/runtime.js';
import { reviewText } from '../agent/session-review.js';
import { type AgentOptions, agentFlags, printWarnings, requireProfile } from '../cli/bootstrap.js';
import { UsageError } from '../cli/errors.js';
import { ConfigError } from '../config/load.js';
import { openWorkspace } from '../config/workspace.js';
import type { SessionController } from '../controller/session-controller.js';
import { PermissionRuleError } from '../permission/rules.js';
import { probeSandboxAhead } from '../sandbox/sandbox.js';
import type { SessionStore } from '../session/store.js';
import { App } from './app.js';
import { ProjectFiles } from './input/file-index.js';
import { historyFile, PromptHistory } from './input/history.js';
import { loadHighlighter } from './markdown/highlight.js';
import { TranscriptStore } from './store/transcript-store.js';
import { createTheme, detectCapabilities } from './theme.js';
import { askTrustAtStart } from './trust/ask-at-start.js';

export interface InteractiveOptions extends AgentOptions {
  /** Words given on the command line: the first prompt. */
  task: string[];
  continue?: boolean;
  resume?: string;
  cwd?: string;
}

function setRawMode(on: boolean): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(on);
}

const BRACKETED_PASTE_ON = '\u001b[?2004h';
const BRACKETED_PASTE_OFF = '\u001b[?2004l';

/**
 * `cadre` on a terminal: the interactive UI over one session controller. Configuration problems are reported
 * exactly as headless reports them (exit 2) before anything is drawn. Returns the exit code.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  // Raw at once: keys typed while the session starts are kept as typed (no echo, Enter stays Enter).
  setRawMode(true);
  let controller: SessionController;
  let store: SessionStore | undefined;
  let workspace: ReturnType<typeof openWorkspace>;
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
    const flags: RuntimeFlags = {
      ...agentFlags(options),
      continue: options.continue,
      resume: options.resume,
    };
    const [{ SessionController }, { openSessionStore }] = await Promise.all([
      import('../controller/session-controller.js'),
      import('../session/store.js'),
      probeSandboxAhead(workspace.loaded.config.sandbox ?? 'auto'),
    ]);
    store = openSessionStore(workspace.loaded.globalDir);
    controller = await SessionController.open({ workspace, flags, store, interactive: true });
  } catch (error) {
    store?.close();
    setRawMode(false);
    if (error instanceof ConfigError || error instanceof UsageError || error instanceof PermissionRuleError) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  const transcript = new TranscriptStore(controller.snapshot());
  transcript.add({ kind: 'welcome' });
  // `--continue` / `--resume`: the conversation so far, as it went.
  transcript.replay(controller.messages());
  const subscription = controller.subscribe((event) => transcript.apply(event));
  const history = PromptHistory.open(historyFile(workspace.loaded.globalDir, workspace.loaded.projectRoot));
  const files = new ProjectFiles(workspace.loaded.projectRoot);
  const initialPrompt = options.task.join(' ').trim() || undefined;

  process.stdout.write(BRACKETED_PASTE_ON);
  let app: ReturnType<typeof render> | undefined;
  // A terminal that goes away or a `kill` ends the session like /quit does.
  const onSignal = () => app?.unmount();
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    app = render(
      <App
        session={controller}
        store={transcript}
        theme={theme}
        history={history}
        files={files}
        initialPrompt={initialPrompt}
      />,
      { exitOnCtrlC: false, patchConsole: true },
    );
    if (theme.caps.colorLevel > 0) void loadHighlighter();
    await app.waitUntilExit();
    // `session_review`: the findings stay on the terminal after the UI is gone (SPEC 4.3).
    const review = await controller.review();
    if (review) process.stdout.write(`${reviewText(review)}\n`);
    return 0;
  } finally {
    process.stdout.write(BRACKETED_PASTE_OFF);
    setRawMode(false);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    subscription.close();
    await controller.close();
    store.close();
  }
}
