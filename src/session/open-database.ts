import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate } from './schema.js';

/** The session database cannot be used at all; the CLI prints the message as one line and exits 1. */
export class SessionStoreError extends Error {
  override name = 'SessionStoreError';
}

/** Tables every migrated database has; one missing means the file was damaged, not merely old. */
const REQUIRED_TABLES = ['sessions', 'messages', 'tool_calls', 'usage', 'tasks', 'approvals', 'blobs'];

/** SQLite codes that mean the file's content is damaged: it is moved aside and a new database started. */
const CORRUPT_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_CORRUPT_INDEX',
]);

class DamagedDatabase extends Error {}

/** What the user can do about a database that cannot be opened, by SQLite or system error code. */
function advice(code: string | undefined): string {
  if (code?.startsWith('SQLITE_BUSY') || code?.startsWith('SQLITE_LOCKED'))
    return 'another process holds it locked; wait for it to finish or stop it, then try again';
  if (code === 'SQLITE_FULL') return 'the disk is full; free some space and try again';
  if (code?.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM')
    return 'it is not writable; fix its permissions or set CADRE_CONFIG_DIR to a writable directory';
  return 'check that the path is a writable file, or set CADRE_CONFIG_DIR to another directory';
}

/** A database error as the one line the user sees: the path, what went wrong, what to do. */
export function sessionStoreFailure(error: unknown, path: string): SessionStoreError {
  const code = (error as NodeJS.ErrnoException).code;
  const isDirectory = (() => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  })();
  const reason = isDirectory
    ? 'it is a directory'
    : `${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ''}`;
  const todo = isDirectory ? 'move it away or set CADRE_CONFIG_DIR to another directory' : advice(code);
  return new SessionStoreError(`cannot use the session database ${path}: ${reason}; ${todo}`);
}

function open(path: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    db.pragma('journal_mode = WAL');
    // In WAL mode NORMAL loses nothing committed when the process dies; only an OS crash or power loss
    // can roll back the last commits, and the database stays consistent either way.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    const tables = new Set(
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => (row as { name: string }).name),
    );
    const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0) throw new DamagedDatabase(`table ${missing.join(', ')} missing`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isDamage(error: unknown): error is Error {
  if (error instanceof DamagedDatabase) return true;
  const code = (error as { code?: string }).code;
  return code !== undefined && CORRUPT_CODES.has(code);
}

/** Moves the database and its WAL/SHM side files aside under one timestamped name; returns that name. */
function moveAside(path: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const aside = `${path}.corrupt-${stamp}`;
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
  }
  return aside;
}

/**
 * Opens (creating when needed) the session database. A damaged one (garbage, truncated, a table missing)
 * is never deleted: it is moved aside with a timestamp, a new one is started and `warn` names both paths.
 * One that cannot be used at all (a directory, locked past the busy timeout, a full disk, no permission)
 * is a SessionStoreError naming the path and what to do.
 */
export function openDatabase(
  dir: string,
  path: string,
  options: { busyTimeoutMs: number; now: number; warn: (message: string) => void },
): Database.Database {
  const unusable = (error: unknown) => sessionStoreFailure(error, path);
  try {
    mkdirSync(dir, { recursive: true });
    return open(path, options.busyTimeoutMs);
  } catch (error) {
    if (!isDamage(error)) throw unusable(error);
    let aside: string;
    try {
      aside = moveAside(path, options.now);
    } catch (moveError) {
      throw unusable(moveError);
    }
    options.warn(
      `the session database ${path} was damaged (${error.message}); it was moved to ${aside} and a new one started`,
    );
    try {
      return open(path, options.busyTimeoutMs);
    } catch (retryError) {
      throw unusable(retryError);
    }
  }
}
