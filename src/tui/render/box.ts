import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { Theme } from '../theme.js';

/** Wraps styled text to `width` columns, keeping its own line breaks. */
export function wrapLines(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split('\n');
}

/** Cuts styled text to `width` columns, ending with `ellipsis` when something was cut. */
export function truncate(text: string, width: number, ellipsis: string): string {
  if (stringWidth(text) <= width) return text;
  const room = Math.max(0, width - stringWidth(ellipsis));
  return (
    wrapAnsi(text, Math.max(1, room), { hard: true, trim: false, wordWrap: false }).split('\n')[0] + ellipsis
  );
}

function pad(line: string, width: number): string {
  return line + ' '.repeat(Math.max(0, width - stringWidth(line)));
}

/** Draws rows inside a frame exactly `width` columns wide, the title set in the top edge. */
export function frame(rows: readonly string[], width: number, theme: Theme, title = ''): string[] {
  const unicode = theme.caps.unicode;
  const [tl, tr, bl, br, h, v] = unicode ? ['╭', '╮', '╰', '╯', '─', '│'] : ['+', '+', '+', '+', '-', '|'];
  const inner = Math.max(1, width - 4);
  const paint = theme.style.dim;
  const heading = title ? ` ${title} ` : '';
  const headingWidth = stringWidth(heading);
  const top =
    headingWidth > 0 && headingWidth <= width - 4
      ? `${paint(tl + h)}${theme.style.bold(heading)}${paint(h.repeat(width - 3 - headingWidth) + tr)}`
      : paint(tl + h.repeat(width - 2) + tr);
  const body = rows
    .flatMap((row) => wrapLines(row, inner))
    .map((row) => `${paint(v)} ${pad(row, inner)} ${paint(v)}`);
  return [top, ...body, paint(bl + h.repeat(width - 2) + br)];
}
