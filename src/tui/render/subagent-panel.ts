import stringWidth from 'string-width';
import type { Theme } from '../theme.js';
import { truncate } from './box.js';
import { compactCount } from './status-line.js';

/** A subagent as the panel shows it: a structural subset of the controller's SubagentView. */
export interface PanelSubagent {
  id: string;
  label: string;
  profile: string | null;
  description: string;
  background: boolean;
  state: string;
  queue?: { position: number; cause: string };
  step: string | null;
  startedAt: number;
  inputTokens: number;
  outputTokens: number;
}

export interface PanelBatch {
  id: string;
  /** A coordinator batch or a fleet; shown as `batch` when absent. */
  kind?: string;
  status: string;
  taskIds: string[];
  startedAt: number;
  endedAt?: number;
}

const LIVE = new Set(['queued', 'running']);

/** 75 s → `1m15s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

const CAUSES: Record<string, string> = {
  slots: 'waiting for a subagent slot',
  writer: 'waiting for the writer slot',
  writers: 'waiting for the writer slot',
  claim: 'waiting for a write-path claim',
  batch: 'waiting for its batch limit',
};

/**
 * The live panel: every queued or running subagent with its profile, current step (the tool it is in),
 * elapsed time and tokens, or its queue position and cause; batches in flight with their progress. Empty when
 * nothing runs. At most `maxRows` rows; the rest are counted (`/tasks` lists them all).
 */
export function renderSubagentPanel(
  subagents: readonly PanelSubagent[],
  batches: readonly PanelBatch[],
  now: number,
  width: number,
  theme: Theme,
  maxRows = 6,
): string[] {
  const { style, glyphs } = theme;
  const rows: string[] = [];
  const byId = new Map(subagents.map((s) => [s.id, s]));
  for (const batch of batches) {
    if (batch.endedAt !== undefined) continue;
    const done = batch.taskIds.filter((id) => {
      const task = byId.get(id);
      return task !== undefined && !LIVE.has(task.state);
    }).length;
    const line = `${glyphs.running} ${batch.kind ?? 'batch'} ${batch.id.slice(0, 8)} ${batch.status} ${glyphs.dot} ${done}/${batch.taskIds.length} done ${glyphs.dot} ${formatElapsed(now - batch.startedAt)}`;
    rows.push(style.cyan(truncate(line, width, glyphs.ellipsis)));
  }
  for (const task of subagents) {
    if (!LIVE.has(task.state)) continue;
    const who = `${task.id.slice(0, 8)} ${task.profile ?? 'general'}${task.background ? ' (bg)' : ''}`;
    const elapsed = formatElapsed(now - task.startedAt);
    let doing: string;
    if (task.state === 'queued') {
      const cause = task.queue ? (CAUSES[task.queue.cause] ?? `waiting: ${task.queue.cause}`) : 'queued';
      // Position 0: not in the scheduler's queue (a fleet item waiting for its dependencies).
      const position = task.queue && task.queue.position > 0 ? ` #${task.queue.position}` : '';
      doing = style.yellow(`queued${position}, ${cause}`);
    } else {
      doing = task.step ?? style.dim('thinking');
    }
    const tokens = task.inputTokens + task.outputTokens;
    const tail = `${elapsed}${tokens > 0 ? ` ${glyphs.dot} ${compactCount(tokens)} tok` : ''}`;
    const marker = task.state === 'queued' ? style.yellow(glyphs.queued) : style.cyan(glyphs.running);
    const head = `${marker} ${style.bold(who)} ${glyphs.dot} `;
    const room = width - stringWidth(head) - stringWidth(tail) - 3;
    rows.push(
      `${head}${truncate(doing, Math.max(4, room), glyphs.ellipsis)} ${style.dim(`${glyphs.dot} ${tail}`)}`,
    );
  }
  if (rows.length <= maxRows) return rows.map((r) => truncate(r, width, glyphs.ellipsis));
  const shown = rows.slice(0, maxRows - 1);
  shown.push(style.dim(`${glyphs.ellipsis} ${rows.length - shown.length} more (/tasks lists them)`));
  return shown;
}
