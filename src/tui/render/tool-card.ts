import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { Theme } from '../theme.js';
import { truncate } from './box.js';
import { callDiffText, renderUnifiedDiff } from './diff.js';

/** One tool call as the transcript shows it. */
export interface ToolCardView {
  /** Counted from 1 in the transcript; what `/expand N` names. */
  number: number;
  /** The call as people read it: `edit src/a.ts`. */
  title: string;
  tool: string;
  input: unknown;
  /** `main › writer` for a subagent's call; absent for the main agent's. */
  label?: string;
  status: 'running' | 'ok' | 'error';
  output?: string;
  durationMs?: number;
}

/** Rows of output shown before a result is collapsed; diffs get more room than plain output. */
export const COLLAPSED_OUTPUT_ROWS = 4;
export const COLLAPSED_DIFF_ROWS = 12;

function fitRows(lines: readonly string[], width: number): string[] {
  return lines.flatMap((line) =>
    stringWidth(line) <= width ? [line] : wrapAnsi(line, width, { hard: true, trim: false }).split('\n'),
  );
}

function titleLine(card: ToolCardView, width: number, theme: Theme): string {
  const { style, glyphs } = theme;
  const marker =
    card.status === 'error'
      ? style.red(glyphs.tool)
      : card.status === 'running'
        ? style.yellow(glyphs.tool)
        : style.green(glyphs.tool);
  const space = card.title.indexOf(' ');
  const name = space === -1 ? card.title : card.title.slice(0, space);
  const rest = space === -1 ? '' : card.title.slice(space);
  const who = card.label ? style.dim(`[${card.label}] `) : '';
  const seconds =
    card.durationMs !== undefined && card.durationMs >= 1000
      ? style.dim(` ${(card.durationMs / 1000).toFixed(1)}s`)
      : '';
  const line = `${marker} ${who}${style.bold(name)}${rest}${seconds}`;
  return truncate(line, width, glyphs.ellipsis);
}

/** What the body says in place of a long plain result, where a count says more than the text. */
function summary(card: ToolCardView): string | null {
  if (card.status !== 'ok' || card.output === undefined) return null;
  if (card.tool === 'read') {
    const count = card.output.replace(/\n$/, '').split('\n').length;
    return `${count} line${count === 1 ? '' : 's'}`;
  }
  return null;
}

/**
 * A tool call as lines: the one-line card (`▸ edit src/a.ts`), then its diff or its result, collapsed past a
 * few rows unless expanded, with a hint naming the keys that expand it.
 */
export function renderToolCard(
  card: ToolCardView,
  width: number,
  theme: Theme,
  options: { expanded?: boolean } = {},
): string[] {
  const { style, glyphs } = theme;
  const out = [titleLine(card, width, theme)];
  const inner = width - 4;
  let rows: string[] = [];
  let limit = COLLAPSED_OUTPUT_ROWS;
  const diff = card.status === 'error' ? null : callDiffText(card.tool, card.input);
  if (diff !== null && card.status === 'ok') {
    rows = renderUnifiedDiff(diff, inner, theme);
    limit = COLLAPSED_DIFF_ROWS;
  } else if (card.output !== undefined && card.output.trim() !== '') {
    const brief = options.expanded ? null : summary(card);
    const text = brief ?? card.output.replace(/\s+$/, '');
    const lines = fitRows(text.replace(/\t/g, '  ').split('\n'), inner);
    rows = card.status === 'error' ? lines.map((l) => style.red(l)) : lines.map((l) => style.dim(l));
  }
  const shown = options.expanded || rows.length <= limit + 1 ? rows : rows.slice(0, limit);
  for (const row of shown) out.push(`  ${style.dim(glyphs.bar)} ${row}`);
  if (shown.length < rows.length) {
    out.push(
      `  ${style.dim(glyphs.bar)} ${style.dim(`${glyphs.ellipsis} +${rows.length - shown.length} lines (ctrl+o or /expand ${card.number})`)}`,
    );
  }
  return out;
}
