/** The text being typed and where the cursor is (an index into `text`, never inside a surrogate pair). */
export interface EditorState {
  text: string;
  cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: '', cursor: 0 };

export function editorWith(text: string): EditorState {
  return { text, cursor: text.length };
}

/** Pasted or typed text: line endings become `\n`, tabs two spaces, other control characters are dropped. */
export function cleanInput(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '  ')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

export function insert(state: EditorState, text: string): EditorState {
  const clean = cleanInput(text);
  return {
    text: state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor),
    cursor: state.cursor + clean.length,
  };
}

function previousIndex(text: string, index: number): number {
  if (index <= 0) return 0;
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? index - 2 : index - 1;
}

function nextIndex(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? index + 2 : index + 1;
}

export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  const start = previousIndex(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const end = nextIndex(state.text, state.cursor);
  return { text: state.text.slice(0, state.cursor) + state.text.slice(end), cursor: state.cursor };
}

export function moveLeft(state: EditorState): EditorState {
  return { ...state, cursor: previousIndex(state.text, state.cursor) };
}

export function moveRight(state: EditorState): EditorState {
  return { ...state, cursor: nextIndex(state.text, state.cursor) };
}

function lineStart(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1;
}

function lineEnd(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end === -1 ? text.length : end;
}

export function moveHome(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) };
}

export function moveEnd(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) };
}

/** Up one line keeping the column; null on the first line (the caller then walks history). */
export function moveUp(state: EditorState): EditorState | null {
  const start = lineStart(state.text, state.cursor);
  if (start === 0) return null;
  const column = state.cursor - start;
  const previousStart = lineStart(state.text, start - 1);
  return { ...state, cursor: Math.min(previousStart + column, start - 1) };
}

/** Down one line keeping the column; null on the last line. */
export function moveDown(state: EditorState): EditorState | null {
  const end = lineEnd(state.text, state.cursor);
  if (end === state.text.length) return null;
  const column = state.cursor - lineStart(state.text, state.cursor);
  const nextStart = end + 1;
  return { ...state, cursor: Math.min(nextStart + column, lineEnd(state.text, nextStart)) };
}

const WORD = /[\p{L}\p{N}_]/u;

export function moveWordLeft(state: EditorState): EditorState {
  let i = state.cursor;
  while (i > 0 && !WORD.test(state.text[i - 1])) i--;
  while (i > 0 && WORD.test(state.text[i - 1])) i--;
  return { ...state, cursor: i };
}

export function moveWordRight(state: EditorState): EditorState {
  let i = state.cursor;
  while (i < state.text.length && !WORD.test(state.text[i])) i++;
  while (i < state.text.length && WORD.test(state.text[i])) i++;
  return { ...state, cursor: i };
}

/** Ctrl+W: the word before the cursor (and the spaces after it). */
export function deleteWordBefore(state: EditorState): EditorState {
  const target = moveWordLeft(state).cursor;
  return { text: state.text.slice(0, target) + state.text.slice(state.cursor), cursor: target };
}

/** Ctrl+U: from the start of the line to the cursor. */
export function deleteToLineStart(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** Ctrl+K: from the cursor to the end of the line. */
export function deleteToLineEnd(state: EditorState): EditorState {
  const end = lineEnd(state.text, state.cursor);
  const cut = end === state.cursor && end < state.text.length ? end + 1 : end;
  return { text: state.text.slice(0, state.cursor) + state.text.slice(cut), cursor: state.cursor };
}

/**
 * Enter: a line ending in `\` right before the cursor continues on a new line (the backslash is consumed);
 * otherwise the text is sent.
 */
export function enter(state: EditorState): { submit: string } | { state: EditorState } {
  if (state.cursor > 0 && state.text[state.cursor - 1] === '\\') {
    return {
      state: {
        text: `${state.text.slice(0, state.cursor - 1)}\n${state.text.slice(state.cursor)}`,
        cursor: state.cursor,
      },
    };
  }
  return { submit: state.text };
}

/** The word being typed at the cursor, for completion: its start index and text (may be empty). */
export function wordAtCursor(state: EditorState): { start: number; word: string } {
  let start = state.cursor;
  while (start > 0 && !/\s/.test(state.text[start - 1])) start--;
  return { start, word: state.text.slice(start, state.cursor) };
}

/** Replaces the word at the cursor with `replacement`. */
export function replaceWord(state: EditorState, replacement: string): EditorState {
  const { start } = wordAtCursor(state);
  return {
    text: state.text.slice(0, start) + replacement + state.text.slice(state.cursor),
    cursor: start + replacement.length,
  };
}
