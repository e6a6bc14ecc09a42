import { Box, type Key, Static, Text, useApp, useInput, useStdout } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
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
  submit(text: string): unknown;
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

  const [editor, setEditor] = useState<E.EditorState>(E.EMPTY_EDITOR);
  const [modal, setModal] = useState<{ askId: string; state: AskModalState } | null>(null);
  const [menuSelected, setMenuSelected] = useState(0);
  const [menuDismissed, setMenuDismissed] = useState<string | null>(null);
  const [hint, setHint] = useState<string | null>(null);
  const [fileList, setFileList] = useState<readonly string[] | null>(null);
  const [frame, setFrame] = useState(0);
  const lastCtrlC = useRef(0);
  const pasting = useRef(false);

  const ask = askView(state);
  const modalState = ask ? (modal?.askId === ask.id ? modal.state : initialAskState(ask)) : null;

  const source = useMemo(
    () => ({
      complete: (line: string) => {
        const local = VIEW_COMMANDS.map((c) => `/${c.name}`).filter(
          (n) => n.startsWith(line) && !line.includes(' '),
        );
        return [...session.complete(line), ...local].sort();
      },
      commands: () => [...session.commands(), ...VIEW_COMMANDS],
      files: () => fileList,
    }),
    [session, fileList],
  );
  const completions: Completion[] = useMemo(
    () => (menuDismissed === editor.text ? [] : completionsFor(editor, source)),
    [editor, source, menuDismissed],
  );
  const menuOpen = completions.length > 0 && !ask;
  const selected = Math.min(menuSelected, Math.max(0, completions.length - 1));

  // The file list is made when an `@` word is first typed, and again when stale.
  const typingFile = E.wordAtCursor(editor).word.startsWith('@');
  useEffect(() => {
    if (!typingFile) return;
    let current = true;
    files.list().then(
      (list) => current && setFileList(list),
      () => current && setFileList([]),
    );
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
    session.submit(props.initialPrompt);
  }, [props.initialPrompt, history, session]);

  const edit = useCallback(
    (next: E.EditorState) => {
      setEditor(next);
      setMenuSelected(0);
      history.reset();
    },
    [history],
  );

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
    session.submit(text);
  };

  const handleModalKey = (input: string, key: Key) => {
    if (!ask || !modalState) return;
    const result = askModalKey(ask, modalState, input, key);
    if ('answer' in result) {
      session.answer(ask.id, result.answer);
      setModal(null);
    } else {
      setModal({ askId: ask.id, state: result.state });
    }
  };

  const handleEditorKey = (input: string, key: Key) => {
    if (menuOpen) {
      if (key.upArrow) return setMenuSelected((selected - 1 + completions.length) % completions.length);
      if (key.downArrow) return setMenuSelected((selected + 1) % completions.length);
      if (key.tab || (key.return && !key.shift && !key.meta))
        return edit(acceptCompletion(editor, completions[selected]));
      if (key.escape) return setMenuDismissed(editor.text);
    }
    if (key.return) {
      if (key.shift || key.meta) return edit(E.insert(editor, '\n'));
      const result = E.enter(editor);
      return 'submit' in result ? submit(result.submit) : edit(result.state);
    }
    if (key.escape) {
      if (state.status === 'running') session.interrupt();
      return;
    }
    if (key.upArrow) {
      const moved = E.moveUp(editor);
      if (moved) return setEditor(moved);
      const previous = history.previous(editor.text);
      if (previous !== null) setEditor(E.editorWith(previous));
      return;
    }
    if (key.downArrow) {
      const moved = E.moveDown(editor);
      if (moved) return setEditor(moved);
      const next = history.next();
      if (next !== null) setEditor(E.editorWith(next));
      return;
    }
    if (key.tab) return;
    if (key.leftArrow) return setEditor(key.ctrl || key.meta ? E.moveWordLeft(editor) : E.moveLeft(editor));
    if (key.rightArrow)
      return setEditor(key.ctrl || key.meta ? E.moveWordRight(editor) : E.moveRight(editor));
    if (key.home) return setEditor(E.moveHome(editor));
    if (key.end) return setEditor(E.moveEnd(editor));
    if (key.backspace || key.delete) return edit(key.meta ? E.deleteWordBefore(editor) : E.backspace(editor));
    if (key.ctrl) {
      switch (input) {
        case 'a':
          return setEditor(E.moveHome(editor));
        case 'e':
          return setEditor(E.moveEnd(editor));
        case 'b':
          return setEditor(E.moveLeft(editor));
        case 'f':
          return setEditor(E.moveRight(editor));
        case 'u':
          return edit(E.deleteToLineStart(editor));
        case 'k':
          return edit(E.deleteToLineEnd(editor));
        case 'w':
          return edit(E.deleteWordBefore(editor));
        case 'd':
          if (editor.text === '') return exit();
          return edit(E.deleteForward(editor));
        case 'o': {
          const number = store.lastCardNumber();
          if (number !== null) store.expand(number);
          return;
        }
        default:
          return;
      }
    }
    if (key.meta && input === 'b') return setEditor(E.moveWordLeft(editor));
    if (key.meta && input === 'f') return setEditor(E.moveWordRight(editor));
    if (input) edit(E.insert(editor, input));
  };

  useInput((input, key) => {
    if (hint && !(key.ctrl && input === 'c')) setHint(null);
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
      if (text !== '' && !ask) edit(E.insert(editor, text));
      return;
    }
    if (key.ctrl && input === 'c') {
      if (editor.text !== '' && !ask) {
        edit(E.EMPTY_EDITOR);
        return;
      }
      if (now() - lastCtrlC.current < CTRL_C_WINDOW_MS) return exit();
      lastCtrlC.current = now();
      setHint('press ctrl+c again to quit');
      return;
    }
    if (ask) return handleModalKey(input, key);
    handleEditorKey(input, key);
  });

  const liveLines = composeLiveArea(
    {
      live,
      state,
      now: now(),
      editor,
      ask: ask && modalState ? { view: ask, modal: modalState } : null,
      menu: menuOpen ? { items: completions, selected } : null,
      hint,
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
