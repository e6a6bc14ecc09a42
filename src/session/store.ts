import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { type ApprovalsTable, approvalsTable } from './approvals-table.js';
import { type BlobsTable, blobsTable } from './blobs-table.js';
import { type MessagesTable, messagesTable } from './messages-table.js';
import { openDatabase } from './open-database.js';
import { type SessionsTable, sessionsTable } from './sessions-table.js';
import { Sql, type StoreContext } from './sql.js';
import { type TasksTable, tasksTable } from './tasks-table.js';
import { type ToolCallsTable, toolCallsTable } from './tool-calls-table.js';
import type { TurnUsage } from './types.js';
import { type UsageTable, usageTable } from './usage-table.js';

// The module's whole surface from one import, for the lazily loaded CLI paths.
export { BLOB_THRESHOLD_BYTES } from './blobs-table.js';
export type { StoredMessage } from './messages-table.js';
export { SessionStoreError, sessionStoreFailure } from './open-database.js';
export { AmbiguousTaskIdError } from './tasks-table.js';
export { TOOL_OUTPUT_KEEP_CHARS } from './tool-calls-table.js';
export type * from './types.js';
export { SESSION_STATUSES, TASK_STATUSES } from './types.js';

export const DATABASE_FILE = 'cadre.db';

export interface SessionStoreOptions {
  /** Epoch milliseconds; defaults to Date.now. */
  now?: () => number;
  /**
   * How long a write waits for another cadre process holding the write lock before failing
   * (SQLITE_BUSY). The wait blocks the event loop, which is acceptable for transactions this short.
   */
  busyTimeoutMs?: number;
  /** Recorded as the owner of new tasks; defaults to process.pid. */
  pid?: number;
  /** Told when a damaged database was moved aside; defaults to a line on stderr. */
  warn?: (message: string) => void;
}

/** Every method is synchronous and takes and returns plain data. */
export interface SessionStore
  extends SessionsTable,
    MessagesTable,
    ToolCallsTable,
    UsageTable,
    TasksTable,
    ApprovalsTable,
    BlobsTable {
  /** The database file. */
  readonly path: string;
  /**
   * One completed turn: its messages (as `appendMessages`) and its usage (as `recordUsage`) in one
   * transaction, so a crash loses at most the turn in flight and a turn costs one commit, not two.
   */
  commitTurn(sessionId: string, turn: number, messages: readonly ModelMessage[], usage: TurnUsage): void;
  /**
   * Runs `write` (calls of the store it is given) a little later, in order with every other write given
   * here (issue 17: a turn's records are written once its next model request is on its way, not on the
   * turn's path): at the event loop's next check phase, or first thing in any other call of this store (a
   * read sees every write made before it), at close, or at process exit. When one fails the writes queued
   * after it are dropped, and the next call of this store throws its error.
   */
  writeLater(write: (store: SessionStore) => void): void;
  /** Runs the deferred writes now; throws the error of one that failed (once). */
  flushWrites(): void;
  close(): void;
}

/**
 * Opens (creating when needed) `<dir>/cadre.db`. Several processes may hold it open at once: WAL lets
 * readers proceed beside one writer, and writers queue on the busy timeout.
 */
export function openSessionStore(dir: string, options: SessionStoreOptions = {}): SessionStore {
  const path = join(dir, DATABASE_FILE);
  const now = options.now ?? Date.now;
  const db = openDatabase(dir, path, {
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    now: now(),
    warn: options.warn ?? ((message) => process.stderr.write(`cadre: warning: ${message}\n`)),
  });
  const context: StoreContext = { sql: new Sql(db), now, pid: options.pid ?? process.pid };
  const tasks = tasksTable(context);
  // Tasks a crashed or killed cadre left queued or running are marked interrupted at the next start.
  tasks.interruptOrphanedTasks();
  const messages = messagesTable(context);
  const usage = usageTable(context);
  const store: SessionStore = {
    ...sessionsTable(context),
    ...messages,
    ...toolCallsTable(context),
    ...usage,
    ...tasks,
    ...approvalsTable(context),
    ...blobsTable(context),
    path,
    commitTurn(sessionId, turn, added, turnUsage) {
      context.sql.transaction(() => {
        messages.appendMessages(sessionId, added, turn);
        usage.recordUsage(sessionId, turn, turnUsage);
      });
    },
    // What a deferred write is given runs at once; withDeferredWrites makes the public ones.
    writeLater: (write) => write(store),
    flushWrites: () => undefined,
    close() {
      if (db.open) db.close();
    },
  };
  return withDeferredWrites(store);
}

/** `store` with `writeLater` and `flushWrites`, every other method running the deferred writes first. */
function withDeferredWrites(store: SessionStore): SessionStore {
  const queue: ((store: SessionStore) => void)[] = [];
  let failed: { error: unknown } | undefined;
  let scheduled: NodeJS.Immediate | undefined;
  // Every queued write has a run scheduled, so without one there is nothing to do.
  const run = () => {
    if (!scheduled) return;
    clearImmediate(scheduled);
    scheduled = undefined;
    process.off('exit', run);
    for (let write = queue.shift(); write; write = queue.shift()) {
      try {
        write(store);
      } catch (error) {
        failed ??= { error };
        queue.length = 0;
      }
    }
  };
  const flushWrites = () => {
    run();
    const failure = failed;
    failed = undefined;
    if (failure) throw failure.error;
  };
  const deferred = Object.fromEntries(
    Object.entries(store).map(([name, value]) => [
      name,
      typeof value === 'function'
        ? (...args: unknown[]) => {
            flushWrites();
            return value(...args);
          }
        : value,
    ]),
  ) as unknown as SessionStore;
  return Object.assign(deferred, {
    writeLater(write: (store: SessionStore) => void) {
      if (failed) flushWrites();
      queue.push(write);
      if (scheduled) return;
      scheduled = setImmediate(run);
      // A process that exits before the check phase still writes what it has (the store is synchronous).
      process.on('exit', run);
    },
    flushWrites,
    close() {
      try {
        flushWrites();
      } finally {
        store.close();
      }
    },
  });
}
