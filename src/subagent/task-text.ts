import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '../tool/tool.js';
import type { SubagentHost } from './host.js';
import { type ReconciledTask, writerLines } from './reconciliation.js';
import { excerptResult, INLINE_RESULT_LIMIT, type LiveTask } from './task-record.js';

/** Where long results are kept: the project and the session store. */
type TextHost = Pick<SubagentHost, 'projectRoot' | 'store' | 'parentSessionId'>;

/** The text the model sees; a long result is stored whole once (session and file) and excerpted. */
export function modelText(host: TextHost, task: LiveTask, text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= INLINE_RESULT_LIMIT) return text;
  const reference = `.cadre/tasks/${task.id}.md`;
  if (!task.stored) {
    const dir = join(host.projectRoot, '.cadre', 'tasks');
    mkdirSync(dir, { recursive: true });
    // Kept out of version control: results are session records, not project files.
    writeFileSync(join(dir, '.gitignore'), '*\n');
    writeFileSync(join(host.projectRoot, reference), text);
    host.store.storeBlob(task.childSessionId ?? host.parentSessionId, text);
    task.stored = true;
  }
  return excerptResult(text, reference);
}

/** What the model is told about a finished task; long results are excerpted with a readable reference. */
export function resultFor(host: TextHost, task: LiveTask): ToolResult {
  const writer = task.writer ? `\n${writerLines(task.writer).join('\n')}` : '';
  const notes = task.notes && task.notes.length > 0 ? `\n${task.notes.join('\n')}` : '';
  if (task.state === 'completed') {
    return { output: `completed:${writer}${notes}\n${modelText(host, task, task.result ?? '')}` };
  }
  const partial = task.result ? `\nPartial output:\n${modelText(host, task, task.result)}` : '';
  return {
    output: `${task.state.replace('_', ' ')}: ${task.error ?? 'no reason given'}${writer}${notes}${partial}`,
    isError: true,
  };
}

/** A batch task's reconciliation entry. */
export function reconciledEntry(host: TextHost, task: LiveTask): ReconciledTask {
  const outcome =
    task.state === 'completed'
      ? modelText(host, task, task.result ?? '')
      : `${task.error ?? 'no reason given'}${task.result ? `\nPartial output:\n${modelText(host, task, task.result)}` : ''}`;
  return {
    id: task.id,
    tier: task.tier,
    prompt: task.prompt,
    state: task.state,
    retryOf: task.retryOf,
    retriedBy: task.retriedBy,
    writer: task.writer,
    outcome,
    notes: task.notes,
  };
}
