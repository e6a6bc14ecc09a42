import stringWidth from 'string-width';
import type { Theme } from '../theme.js';
import type { EditorState } from './editor.js';

const INVERSE_ON = '\u001b[7m';
const INVERSE_OFF = '\u001b[27m';

/** Splits a line into rows of at most `width` columns, character by character (wide characters count two). */
function rowsOf(line: string, width: number): { text: string; start: number }[] {
  const rows: { text: string; start: number }[] = [];
  let row = '';
  let rowWidth = 0;
  let start = 0;
  let index = 0;
  for (const char of line) {
    const w = stringWidth(char);
    if (rowWidth + w > width && row !== '') {
      rows.push({ text: row, start });
      row = '';
      rowWidth = 0;
      start = index;
    }
    row += char;
    rowWidth += w;
    index += char.length;
  }
  rows.push({ text: row, start });
  return rows;
}

/**
 * The input box's rows: a prompt on the first, an indent on the others, the text wrapped to the width and the
 * cursor drawn in reverse video (reverse video is not colour: it stays under `NO_COLOR`).
 */
export function renderEditor(
  state: EditorState,
  width: number,
  theme: Theme,
  options: { placeholder?: string; prompt?: string } = {},
): string[] {
  const prompt = `${options.prompt ?? theme.glyphs.prompt} `;
  const indent = ' '.repeat(stringWidth(prompt));
  const inner = Math.max(4, width - stringWidth(prompt) - 1);
  if (state.text === '') {
    const hint = options.placeholder ? theme.style.dim(options.placeholder.slice(0, inner - 1)) : '';
    return [`${prompt}${INVERSE_ON} ${INVERSE_OFF}${hint}`];
  }
  const out: string[] = [];
  let offset = 0;
  for (const line of state.text.split('\n')) {
    for (const row of rowsOf(line, inner)) {
      const rowStart = offset + row.start;
      const rowEnd = rowStart + row.text.length;
      let text = row.text;
      const last = rowEnd === offset + line.length;
      if (state.cursor >= rowStart && (state.cursor < rowEnd || (state.cursor === rowEnd && last))) {
        const at = state.cursor - rowStart;
        const char = text.slice(at).match(/^[\s\S]/u)?.[0] ?? ' ';
        const charLength = at < text.length ? char.length : 0;
        text = `${text.slice(0, at)}${INVERSE_ON}${char}${INVERSE_OFF}${text.slice(at + charLength)}`;
      }
      out.push(`${out.length === 0 ? prompt : indent}${text}`);
    }
    offset += line.length + 1;
  }
  return out;
}
