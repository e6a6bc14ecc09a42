import { renderMarkdown } from '../markdown/render.js';
import type { TranscriptItem } from '../store/transcript-store.js';
import type { Theme } from '../theme.js';
import { truncate, wrapLines } from './box.js';
import { renderToolCard } from './tool-card.js';

const REASONING_ROWS = 2;

/** Items that sit together without a blank line between them (a run of tool cards and notes). */
const COMPACT = new Set<TranscriptItem['kind']>(['tool', 'line']);

/** The blank line that separates an item from the one before it, when it needs one. */
export function needsGap(previous: TranscriptItem | undefined, item: TranscriptItem): boolean {
  if (previous === undefined) return false;
  return !(COMPACT.has(previous.kind) && COMPACT.has(item.kind));
}

function tone(item: Extract<TranscriptItem, { kind: 'line' }>, theme: Theme): string {
  const { style, glyphs } = theme;
  switch (item.tone) {
    case 'error':
      return style.red(`${glyphs.fail} ${item.text}`);
    case 'warn':
      return style.yellow(`! ${item.text}`);
    case 'ok':
      return style.green(`${glyphs.ok} ${item.text}`);
    case 'dim':
      return style.dim(`${glyphs.dot} ${item.text}`);
    default:
      return style.cyan(`${glyphs.bullet} ${item.text}`);
  }
}

/** One transcript item as lines of at most `width` columns. */
export function renderItem(item: TranscriptItem, width: number, theme: Theme): string[] {
  const { style, glyphs } = theme;
  switch (item.kind) {
    case 'welcome':
      return [
        `${style.bold('cadre')} ${style.dim('interactive')}`,
        style.dim(
          truncate(
            `enter send ${glyphs.dot} shift+enter or \\ newline ${glyphs.dot} / commands ${glyphs.dot} @ files ${glyphs.dot} esc interrupt ${glyphs.dot} ctrl+c twice quit`,
            width,
            glyphs.ellipsis,
          ),
        ),
      ].flatMap((line) => wrapLines(line, width));
    case 'user': {
      const rows = item.text.split('\n').flatMap((line) => wrapLines(line, width - 2));
      return rows.map((row, i) => style.bold(`${i === 0 ? glyphs.prompt : ' '} `) + row);
    }
    case 'markdown':
      return renderMarkdown(item.text, width, theme);
    case 'reasoning': {
      const rows = item.text.split('\n').flatMap((line) => wrapLines(line, width - 2));
      const shown = rows.slice(0, REASONING_ROWS).map((row) => style.dim.italic(`  ${row}`));
      const rest = rows.length - shown.length;
      return [
        style.dim(`${glyphs.bullet} thinking`),
        ...shown,
        ...(rest > 0 ? [style.dim(`  ${glyphs.ellipsis} +${rest} lines`)] : []),
      ];
    }
    case 'tool':
      return renderToolCard(item.card, width, theme, { expanded: item.expanded });
    case 'line':
      return wrapLines(tone(item, theme), width);
    case 'block': {
      const rows = item.text
        .replace(/\s+$/, '')
        .split('\n')
        .flatMap((line) => wrapLines(line, width));
      return item.isError ? rows.map((row) => style.red(row)) : rows;
    }
  }
}
