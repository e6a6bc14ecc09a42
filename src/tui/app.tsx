import { Box, type Key, Static, Text, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, useSyncExternalStore } from 'react';
import type { ControllerState, UserAnswer } from '../controller/types.js';
import { type AskModalState, type AskView, askModalKey, initialAskState } from './ask/ask-modal.js';
import { acceptCompletion, type Completion, completionsFor } from './input/completion.js';
import * as E from './input/editor.js';
import type { ProjectFiles } from './input/file-index.js';
import type { PromptHistory } from './input/history.js';
import { composeLiveArea } from './live-area.js';
import { needsGap, renderItem } from './render/items.js';
import type { TranscriptItem, TranscriptStore } from './store/transcript-store.js';
import type { Theme } from './theme.js';

/** What the view drives: a structural subset of the session controller's API. */
export interface SessionPort {
  submit(text: string): { outcome: Promise<{ quit?: boolean }> };
  interrupt(): boolean;
  answer(askId: string, answer: UserAnswer): { ok: boolean };
  commands(): readonly { name: string; summary: string; args: string }[];
  complete(line: string): string[];
}

export interface AppProps {
  session: SessionPort;
  store: TranscriptStore;
  theme: Theme;
  history: PromptHistory;
  files: ProjectFiles;
  /** Sent as soon as the UI is up (`cadre "first prompt"`). */
  initialPrompt?: string;
  now?: () => number;
}

/** Commands the view answers itself: they only change what is shown, never the session. */
const VIEW_COMMANDS = [{ name: 'expand', summary: 'print a collapsed tool result in full', args: '<N>' }];

const CTRL_C_WINDOW_MS = 2000;
const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';
const BRACKETED_PASTE_START = '[200~';
const BRACKETED_PASTE_END = '[201~';

function sizeOf(stdout: NodeJS.WriteStream): { columns: number; rows: number } {
  return { columns: stdout.columns || 80, rows: stdout.rows || 24 };
}

function useTerminalSize(): { columns: number; rows: number; epoch: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => ({ ...sizeOf(stdout), epoch: 0 }));
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const onResize = () => {
      clearTimeout(timer);
      // A drag sends many events; the transcript is printed again once it settles.
      timer = setTimeout(() => {
        const next = sizeOf(stdout);
        setSize((previous) => {
          if (previous.columns === next.columns && previous.rows === next.rows) return previous;
          // Printed lines do not re-flow: the screen is cleared and the transcript printed again at the new width.
          if (previous.columns !== next.columns) stdout.write(CLEAR_SCREEN);
          return { ...next, epoch: previous.epoch + (previous.columns !== next.columns ? 1 : 0) };
        });
      }, 40);
    };
    stdout.on('resize', onResize);
    return () => {
      clearTimeout(timer);
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

interface InputState {
  editor: E.EditorState;
  modal: { askId: string; state: AskModalState } | null;
  menuSelected: number;
  /** The text for which Esc closed the completion menu; it opens again once the text changes. */
  menuDismissed: string | null;
  hint: string | null;
}

const INITIAL_INPUT: InputState = {
  editor: E.EMPTY_EDITOR,
  modal: null,
  menuSelected: 0,
  menuDismissed: null,
  hint: null,
};

function askView(state: ControllerState): AskView | null {
  const ask = state.asks[0];
  return ask ? (ask as AskView) : null;
}

/** The interactive session: the printed transcript (static), and the live area under it. */
export function App(props: AppProps) {
  const { session, store, theme, history, files } = props;
  const now = props.now ?? Date.now;
  const { exit } = useApp();
  const { columns, rows, epoch } = useTerminalSize();
  useSyncExternalStore(store.subscribe, store.getVersion);
  const { items, live, state } = store.snapshot;

  // Input state lives in a ref: several keys read in one chunk are handled before React renders again, and
  // each must see what the previous one did.
  const ui = useRef<InputState>(INITIAL_INPUT);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const update = useCallback((change: Partial<InputState>) => {
    ui.current = { ...ui.current, ...change };
    rerender();
  }, []);
  // The project's files, once listed: a ref, so a key read before the next render already sees them.
  const fileList = useRef<readonly string[] | null>(null);
  const [frame, setFrame] = useState(0);
  const lastCtrlC = useRef(0);
  const pasting = useRef(false);

  const source = useMemo(
    () => ({
      complete: (line: string) => {
        const local = VIEW_COMMANDS.map((c) => `/${c.name}`).filter(
          (n) => n.startsWith(line) && !line.includes(' '),
        );
        return [...session.complete(line), ...local].sort();
      },
      commands: () => [...session.commands(), ...VIEW_COMMANDS],
      files: () => fileList.current,
    }),
    [session],
  );
  const completionsNow = (): Completion[] => {
    const { editor, menuDismissed } = ui.current;
    return menuDismissed === editor.text || askView(store.snapshot.state)
      ? []
      : completionsFor(editor, source);
  };
  const modalNow = (ask: AskView): AskModalState =>
    ui.current.modal?.askId === ask.id ? ui.current.modal.state : initialAskState(ask);

  const { editor } = ui.current;
  // The file list is made when an `@` word is first typed, and again when stale.
  const typingFile = E.wordAtCursor(editor).word.startsWith('@');
  useEffect(() => {
    if (!typingFile) return;
    let current = true;
    const listed = (list: readonly string[]) => {
      if (!current) return;
      fileList.current = list;
      rerender();
    };
    files.list().then(listed, () => listed([]));
    return () => {
      current = false;
    };
  }, [typingFile, files]);

  // The spinner and elapsed times move only while something runs.
  const busy =
    state.status === 'running' || state.subagents.some((s) => s.state === 'running' || s.state === 'queued');
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => setFrame((f) => f + 1), 120);
    return () => clearInterval(timer);
  }, [busy]);

  useEffect(() => {
    if (store.quit) exit();
  });

  const initialSent = useRef(false);
  useEffect(() => {
    if (initialSent.current || !props.initialPrompt) return;
    initialSent.current = true;
    history.add(props.initialPrompt);
    session.submit(props.initialPrompt).outcome.then(
      (outcome) => outcome.quit && exit(),
      () => undefined,
    );
  }, [props.initialPrompt, history, session, exit]);

  /** A change of the text: the menu starts again from its top and the history walk ends. */
  const edit = (next: E.EditorState) => {
    update({ editor: next, menuSelected: 0 });
    history.reset();
  };
  const move = (next: E.EditorState) => update({ editor: next });

  const submit = (text: string) => {
    if (text.trim() === '') return;
    history.add(text);
    edit(E.EMPTY_EDITOR);
    const expand = /^\/expand(?:\s+(\S+))?\s*$/.exec(text.trim());
    if (expand) {
      const number = expand[1] === undefined ? store.lastCardNumber() : Number(expand[1]);
      if (number === null || !Number.isInteger(number) || !store.expand(number)) {
        store.add({ kind: 'line', tone: 'error', text: `/expand: no tool result ${expand[1] ?? ''}`.trim() });
      }
      return;
    }
    // `/quit` answers through the outcome of the command it ran.
    session.submit(text).outcome.then(
      (outcome) => outcome.quit && exit(),
      () => undefined,
    );
  };

  const pressEnter = (current: E.EditorState) => {
    const result = E.enter(current);
    if ('submit' in result) submit(result.submit);
    else edit(result.state);
  };

  const handleModalKey = (ask: AskView, input: string, key: Key) => {
    const result = askModalKey(ask, modalNow(ask), input, key);
    if ('answer' in result) {
      update({ modal: null });
      session.answer(ask.id, result.answer);
    } else {
      update({ modal: { askId: ask.id, state: result.state } });
    }
  };

  const handleEditorKey = (input: string, key: Key) => {
    const current = ui.current.editor;
    const completions = completionsNow();
    if (completions.length > 0) {
      const selected = Math.min(ui.current.menuSelected, completions.length - 1);
      const count = completions.length;
      if (key.upArrow) return update({ menuSelected: (selected - 1 + count) % count });
      if (key.downArrow) return update({ menuSelected: (selected + 1) % count });
      if (key.tab || (key.return && !key.shift && !key.meta))
        return edit(acceptCompletion(current, completions[selected]));
      if (key.escape) return update({ menuDismissed: current.text });
    }
    if (key.return) {
      if (key.shift || key.meta) return edit(E.insert(current, '\n'));
      return pressEnter(current);
    }
    if (key.escape) {
      if (store.snapshot.state.status === 'running') session.interrupt();
      return;
    }
    if (key.upArrow) {
      const moved = E.moveUp(current);
      if (moved) return move(moved);
      const previous = history.previous(current.text);
      if (previous !== null) move(E.editorWith(previous));
      return;
    }
    if (key.downArrow) {
      const moved = E.moveDown(current);
      if (moved) return move(moved);
      const next = history.next();
      if (next !== null) move(E.editorWith(next));
      return;
    }
    if (key.tab) return;
    if (key.leftArrow) return move(key.ctrl || key.meta ? E.moveWordLeft(current) : E.moveLeft(current));
    if (key.rightArrow) return move(key.ctrl || key.meta ? E.moveWordRight(current) : E.moveRight(current));
    if (key.home) return move(E.moveHome(current));
    if (key.end) return move(E.moveEnd(current));
    if (key.backspace || key.delete)
      return edit(key.meta ? E.deleteWordBefore(current) : E.backspace(current));
    if (key.ctrl) {
      switch (input) {
        case 'a':
          return move(E.moveHome(current));
        case 'e':
          return move(E.moveEnd(current));
        case 'b':
          return move(E.moveLeft(current));
        case 'f':
          return move(E.moveRight(current));
        case 'u':
          return edit(E.deleteToLineStart(current));
        case 'k':
          return edit(E.deleteToLineEnd(current));
        case 'w':
          return edit(E.deleteWordBefore(current));
        case 'd':
          if (current.text === '') return exit();
          return edit(E.deleteForward(current));
        case 'o': {
          const number = store.lastCardNumber();
          if (number !== null) store.expand(number);
          return;
        }
        default:
          return;
      }
    }
    if (key.meta && input === 'b') return move(E.moveWordLeft(current));
    if (key.meta && input === 'f') return move(E.moveWordRight(current));
    if (input) edit(E.insert(current, input));
  };

  // ink subscribes a new handler after each render (in an effect): keys read in between reach this one
  // stable function, which calls the latest handler.
  const onKey = (input: string, key: Key) => {
    if (ui.current.hint && !(key.ctrl && input === 'c')) update({ hint: null });
    const ask = askView(store.snapshot.state);
    // Bracketed paste: everything between the markers is text, line breaks included.
    if (input.includes(BRACKETED_PASTE_START) || input.includes(BRACKETED_PASTE_END) || pasting.current) {
      let text = input;
      if (text.includes(BRACKETED_PASTE_START)) {
        pasting.current = true;
        text = text.slice(text.indexOf(BRACKETED_PASTE_START) + BRACKETED_PASTE_START.length);
      }
      if (text.includes(BRACKETED_PASTE_END)) {
        pasting.current = false;
        text = text.slice(0, text.indexOf(BRACKETED_PASTE_END));
      }
      if (key.return) text = '\n';
      if (text !== '' && !ask) edit(E.insert(ui.current.editor, text));
      return;
    }
    // Ctrl+C pressed twice before the first was read arrives as one chunk.
    const ctrlCs = key.ctrl && input === 'c' ? 1 : /^\u0003+$/.test(input) ? input.length : 0;
    if (ctrlCs > 0) {
      for (let i = 0; i < ctrlCs; i++) {
        if (ui.current.editor.text !== '' && !ask) edit(E.EMPTY_EDITOR);
        else if (now() - lastCtrlC.current < CTRL_C_WINDOW_MS) return exit();
        else {
          lastCtrlC.current = now();
          update({ hint: 'press ctrl+c again to quit' });
        }
      }
      return;
    }
    if (ask) return handleModalKey(ask, input, key);
    // Keys typed faster than they are read arrive as one chunk: text then Enter is typed text, then Enter (a
    // paste comes bracketed, or with line breaks inside it).
    if (input.length > 1 && input.endsWith('\r') && !input.slice(0, -1).includes('\r')) {
      return pressEnter(E.insert(ui.current.editor, input.slice(0, -1)));
    }
    handleEditorKey(input, key);
  };
  const latestKeyHandler = useRef(onKey);
  latestKeyHandler.current = onKey;
  useInput(useCallback((input: string, key: Key) => latestKeyHandler.current(input, key), []));

  const ask = askView(state);
  const completions = completionsNow();
  const liveAsk = ask ? { view: ask, modal: modalNow(ask) } : null;
  const liveLines = composeLiveArea(
    {
      live,
      state,
      now: now(),
      editor,
      ask: liveAsk,
      menu:
        completions.length > 0
          ? { items: completions, selected: Math.min(ui.current.menuSelected, completions.length - 1) }
          : null,
      hint: ui.current.hint,
      width: columns,
      height: rows,
      frame,
    },
    theme,
  );

  return (
    <>
      <Static key={epoch} items={items as TranscriptItem[]}>
        {(item, index) => (
          <Text key={`${epoch}-${item.id}`}>
            {[...(needsGap(items[index - 1], item) ? [''] : []), ...renderItem(item, columns, theme)].join(
              '\n',
            )}
          </Text>
        )}
      </Static>
      <Box flexDirection="column">
        <Text>{liveLines.join('\n')}</Text>
      </Box>
    </>
  );
}
