import { structuredPatch } from 'diff';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { Theme } from '../theme.js';

/** Cuts a line into pieces of at most `width` columns; diff lines keep their spacing. */
function fitWidth(line: string, width: number): string[] {
  return stringWidth(line) <= width ? [line] : wrapAnsi(line, width, { hard: true, trim: false }).split('\n');
}

function styleDiffLine(line: string, theme: Theme): string {
  const { style } = theme;
  if (line.startsWith('+++') || line.startsWith('---')) return style.bold(line);
  if (line.startsWith('@@')) return style.cyan(line);
  if (line.startsWith('+')) return style.green(line);
  if (line.startsWith('-')) return style.red(line);
  if (line.startsWith('diff ') || line.startsWith('index ')) return style.dim(line);
  return line;
}

/** A unified diff's lines, coloured (additions green, deletions red, hunk headers cyan) and fitted to width. */
export function renderUnifiedDiff(patch: string, width: number, theme: Theme): string[] {
  const lines = patch.replace(/\n$/, '').split('\n');
  return lines.flatMap((line) =>
    fitWidth(line.replace(/\t/g, '  '), width).map((piece) => styleDiffLine(piece, theme)),
  );
}

/**
 * The change an `edit` makes, as the removed and added lines with a little context. An edit names text, not
 * lines, so there are no line numbers to show: hunks are parted by `@@` alone.
 */
export function editDiffText(oldText: string, newText: string, context = 2): string {
  const patch = structuredPatch('a', 'b', oldText, newText, undefined, undefined, { context });
  return patch.hunks.map((hunk) => hunk.lines.join('\n')).join('\n@@\n');
}

function stringField(input: unknown, key: string): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The diff a file-changing call shows (`edit`, `write`, `apply_patch`), as the text of a unified diff, or null
 * for any other call. A `write` shows its content as added lines.
 */
export function callDiffText(tool: string, input: unknown): string | null {
  if (tool === 'edit') {
    const oldText = stringField(input, 'old_string');
    const newText = stringField(input, 'new_string');
    if (oldText === undefined || newText === undefined) return null;
    return editDiffText(ensureNewline(oldText), ensureNewline(newText));
  }
  if (tool === 'apply_patch') return stringField(input, 'patch') ?? null;
  if (tool === 'write') {
    const content = stringField(input, 'content');
    if (content === undefined) return null;
    const lines = content.replace(/\n$/, '').split('\n');
    return lines.map((l) => `+${l}`).join('\n');
  }
  return null;
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
