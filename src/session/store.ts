import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type ApprovalsTable, approvalsTable } from './approvals-table.js';
import { type BlobsTable, blobsTable } from './blobs-table.js';
import { type MessagesTable, messagesTable } from './messages-table.js';
import { migrate } from './schema.js';
import { type SessionsTable, sessionsTable } from './sessions-table.js';
import { Sql, type StoreContext } from './sql.js';
import { type TasksTable, tasksTable } from './tasks-table.js';
import { type ToolCallsTable, toolCallsTable } from './tool-calls-table.js';
import { type UsageTable, usageTable } from './usage-table.js';

// The module's whole surface from one import, for the lazily loaded CLI paths.
export { BLOB_THRESHOLD_BYTES } from './blobs-table.js';
export type { StoredMessage } from './messages-table.js';
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
  close(): void;
}

/**
 * Opens (creating when needed) `<dir>/cadre.db`. Several processes may hold it open at once: WAL lets
 * readers proceed beside one writer, and writers queue on the busy timeout.
 */
export function openSessionStore(dir: string, options: SessionStoreOptions = {}): SessionStore {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, DATABASE_FILE);
  const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL loses nothing committed when the process dies; only an OS crash or power loss
    // can roll back the last commits, and the database stays consistent either way.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const context: StoreContext = {
    sql: new Sql(db),
    now: options.now ?? Date.now,
    pid: options.pid ?? process.pid,
  };
  return {
    ...sessionsTable(context),
    ...messagesTable(context),
    ...toolCallsTable(context),
    ...usageTable(context),
    ...tasksTable(context),
    ...approvalsTable(context),
    ...blobsTable(context),
    path,
    close() {
      if (db.open) db.close();
    },
  };
}
