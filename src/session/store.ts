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
  return {
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
    close() {
      if (db.open) db.close();
    },
  };
}
