import { randomBytes } from 'node:crypto';
import { type ReconciledTask, reconciliationText } from './reconciliation.js';
import { type LiveTask, TERMINAL_STATES } from './task-record.js';

/**
 * A coordinator batch (SPEC 8): the background dispatches since the last reconciliation. `open` takes new
 * tasks; `closed` has its reconciliation text, waiting to be delivered; `reconciled` was delivered.
 */
interface Batch {
  id: string;
  taskIds: string[];
  state: 'open' | 'closed' | 'reconciled';
  text: string;
}

function batchId(): string {
  return `b-${randomBytes(4).toString('hex')}`;
}

/** The session's coordinator batches, in order. At most one is open. */
export class Batches {
  private readonly all: Batch[] = [];

  private get open(): Batch | undefined {
    return this.all.find((b) => b.state === 'open');
  }

  /** The open batch's id, opening one when none is. */
  join(): string {
    const open = this.open;
    if (open) return open.id;
    const batch: Batch = { id: batchId(), taskIds: [], state: 'open', text: '' };
    this.all.push(batch);
    return batch.id;
  }

  add(id: string, taskId: string): void {
    this.all.find((b) => b.id === id)?.taskIds.push(taskId);
  }

  isReconciled(id: string): boolean {
    return this.all.find((b) => b.id === id)?.state === 'reconciled';
  }

  /**
   * Closes the open batch when every task of it is terminal (the barrier), writing its one reconciliation
   * message; later dispatches open a new batch. Returns the batches it closed.
   */
  closeComplete(
    task: (id: string) => LiveTask,
    entries: (tasks: LiveTask[]) => ReconciledTask[],
  ): { id: string; taskIds: string[]; text: string }[] {
    const open = this.open;
    if (!open || open.taskIds.length === 0) return [];
    const tasks = open.taskIds.map(task);
    if (!tasks.every((t) => TERMINAL_STATES.has(t.state))) return [];
    open.state = 'closed';
    open.text = reconciliationText(entries(tasks));
    return [{ id: open.id, taskIds: [...open.taskIds], text: open.text }];
  }

  /** Closed batches whose reconciliation has not been delivered yet, oldest first. */
  undelivered(): { id: string; text: string }[] {
    return this.all.filter((b) => b.state === 'closed').map((b) => ({ id: b.id, text: b.text }));
  }

  delivered(id: string): void {
    const batch = this.all.find((b) => b.id === id);
    if (batch?.state === 'closed') batch.state = 'reconciled';
  }
}
