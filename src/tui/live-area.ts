import type { ControllerState } from '../controller/types.js';
import { type AskModalState, type AskView, renderAskModal } from './ask/ask-modal.js';
import type { EditorState } from './input/editor.js';
import { renderEditor } from './input/editor-view.js';
import { renderMarkdown } from './markdown/render.js';
import { truncate } from './render/box.js';
import { renderStatusLine } from './render/status-line.js';
import { formatElapsed, renderSubagentPanel } from './render/subagent-panel.js';
import { renderToolCard } from './render/tool-card.js';
import type { LiveView } from './store/transcript-store.js';
import type { Theme } from './theme.js';

export interface CompletionMenu {
  items: { value: string; detail: string }[];
  selected: number;
}

export interface LiveInput {
  live: LiveView;
  state: ControllerState;
  now: number;
  editor: EditorState;
  /** The ask on screen (the first pending one) and the modal's state. */
  ask: { view: AskView; modal: AskModalState } | null;
  menu: CompletionMenu | null;
  /** A one-line hint under the input (`press ctrl+c again to quit`). */
  hint: string | null;
  width: number;
  height: number;
  frame: number;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ASCII_SPINNER = ['-', '\\', '|', '/'];
const MAX_MENU_ROWS = 6;
const MAX_QUEUE_ROWS = 3;

/** The editor's rows, scrolled so the cursor row stays visible when the text is taller than `maxRows`. */
function editorWindow(rows: string[], maxRows: number): string[] {
  if (rows.length <= maxRows) return rows;
  const cursorRow = Math.max(
    0,
    rows.findIndex((row) => row.includes('\u001b[7m')),
  );
  const start = Math.min(Math.max(0, cursorRow - maxRows + 1), rows.length - maxRows);
  return rows.slice(start, start + maxRows);
}

/**
 * Everything below the printed transcript, as lines, never taller than the terminal minus one row (a live area
 * as tall as the screen makes ink clear and redraw everything): the streamed answer's tail, running tools,
 * the working line, the subagent panel, queued prompts, then the ask modal or the input with its completion
 * menu, then the status line. When room runs out the streamed tail gives way first.
 */
export function composeLiveArea(input: LiveInput, theme: Theme): string[] {
  const { state, width, live } = input;
  const { style, glyphs } = theme;
  const budget = Math.max(3, input.height - 1);
  const bottom: string[] = [];

  // Bottom up: the status line, the hint, the input (or the modal), its menu.
  const status = renderStatusLine(state, width, theme);
  if (input.ask) {
    const modal = renderAskModal(input.ask.view, input.ask.modal, width, theme, Math.max(6, budget - 2));
    bottom.push(...modal);
  } else {
    if (input.menu && input.menu.items.length > 0) {
      const { items, selected } = input.menu;
      const start = Math.min(
        Math.max(0, selected - MAX_MENU_ROWS + 1),
        Math.max(0, items.length - MAX_MENU_ROWS),
      );
      items.slice(start, start + MAX_MENU_ROWS).forEach((item, i) => {
        const chosen = start + i === selected;
        const row = truncate(
          `${chosen ? glyphs.prompt : ' '} ${item.value}  ${style.dim(item.detail)}`,
          width,
          glyphs.ellipsis,
        );
        bottom.push(chosen ? style.cyan(row) : row);
      });
    }
    bottom.push(style.dim(glyphs.rule.repeat(width)));
    const placeholder =
      state.status === 'running' ? 'type to queue a message' : 'ask anything, / for commands, @ for files';
    const editorRows = renderEditor(input.editor, width, theme, { placeholder });
    bottom.push(...editorWindow(editorRows, Math.max(3, Math.floor(budget / 2))));
  }
  if (input.hint) bottom.push(style.yellow(truncate(input.hint, width, glyphs.ellipsis)));
  bottom.push(status);

  const middle: string[] = [];
  for (const queued of state.queue.slice(0, MAX_QUEUE_ROWS)) {
    middle.push(
      style.dim(
        truncate(`${glyphs.queued} queued: ${queued.text.replace(/\s+/g, ' ')}`, width, glyphs.ellipsis),
      ),
    );
  }
  if (state.queue.length > MAX_QUEUE_ROWS)
    middle.push(style.dim(`  ${glyphs.ellipsis} ${state.queue.length - MAX_QUEUE_ROWS} more queued`));
  const panel = renderSubagentPanel(state.subagents, state.batches, input.now, width, theme);
  if (state.status === 'running' && state.turn) {
    const spinner = theme.caps.unicode ? SPINNER : ASCII_SPINNER;
    const waiting = state.asks.length > 0 ? 'waiting for your answer' : 'working';
    middle.unshift(
      truncate(
        `${style.cyan(spinner[input.frame % spinner.length])} ${waiting} ${style.dim(`(${formatElapsed(input.now - state.turn.startedAt)} ${glyphs.dot} esc to interrupt)`)}`,
        width,
        glyphs.ellipsis,
      ),
    );
  }
  middle.unshift(...panel);

  const top: string[] = [];
  for (const card of live.running) top.push(...renderToolCard(card, width, theme).slice(0, 1));
  const streamRows: string[] = [];
  if (live.reasoning.trim() !== '' && live.text.trim() === '') {
    const last = live.reasoning.trim().split('\n').pop() ?? '';
    streamRows.push(style.dim.italic(truncate(`${glyphs.bullet} thinking: ${last}`, width, glyphs.ellipsis)));
  }
  if (live.text.trim() !== '') streamRows.push(...renderMarkdown(live.text, width, theme));

  // The panel and queue may take what the input leaves; the streamed tail gets the rest, newest rows kept.
  let room = budget - bottom.length;
  const middleShown = middle.slice(0, Math.max(0, room));
  room -= middleShown.length;
  const topShown = top.slice(0, Math.max(0, room));
  room -= topShown.length;
  let tail: string[] = [];
  if (room > 0 && streamRows.length > 0) {
    tail =
      streamRows.length <= room
        ? streamRows
        : [style.dim(glyphs.ellipsis), ...streamRows.slice(streamRows.length - room + 1)];
    if (room === 1 && streamRows.length > 1) tail = streamRows.slice(-1);
  }
  const lines = [...tail, ...topShown, ...middleShown, ...bottom];
  // One blank row parts the live area from the transcript above it, when there is room for it.
  if (lines.length < budget) lines.unshift('');
  return lines.length <= budget ? lines : lines.slice(lines.length - budget);
}
