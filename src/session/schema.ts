import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append new
 * entries, never edit a shipped one: databases in the field have already run it.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    project_root TEXT NOT NULL,
    cwd TEXT NOT NULL,
    agent TEXT,
    model TEXT,
    title TEXT,
    status TEXT NOT NULL DEFAULT 'active'
  );
  CREATE INDEX sessions_by_project ON sessions(project_root, updated_at);
  CREATE INDEX sessions_by_parent ON sessions(parent_id);

  CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    role TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX messages_by_session ON messages(session_id, id);

  CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    input TEXT NOT NULL,
    output TEXT NOT NULL,
    output_truncated INTEGER NOT NULL,
    is_error INTEGER NOT NULL,
    decision_action TEXT,
    decision_layer TEXT,
    decision_rule TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL
  );
  CREATE INDEX tool_calls_by_session ON tool_calls(session_id, id);

  CREATE TABLE usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cost_usd REAL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX usage_by_session ON usage(session_id);

  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    child_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    profile TEXT,
    tier TEXT,
    model TEXT,
    description TEXT,
    prompt TEXT NOT NULL,
    status TEXT NOT NULL,
    background INTEGER NOT NULL,
    result TEXT,
    error TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    isolation TEXT,
    worktree_path TEXT,
    branch TEXT,
    retry_of TEXT REFERENCES tasks(id) ON DELETE SET NULL,
    owner_pid INTEGER
  );
  CREATE INDEX tasks_by_parent ON tasks(parent_session_id, created_at);

  CREATE TABLE approvals (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    rule TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, rule)
  );

  CREATE TABLE blobs (
    ref TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    bytes INTEGER NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // 2: the write paths a dispatch declared (JSON array), recorded for the write-claim scheduler.
  `ALTER TABLE tasks ADD COLUMN write_paths TEXT;`,
  // 3: coordinated batches and writer worktrees (SPEC 8, 9): what `cadre tasks` lists, merges and discards.
  `
  ALTER TABLE tasks ADD COLUMN batch_id TEXT;
  ALTER TABLE tasks ADD COLUMN repo_root TEXT;
  ALTER TABLE tasks ADD COLUMN worktree_base TEXT;
  ALTER TABLE tasks ADD COLUMN worktree_state TEXT;
  ALTER TABLE tasks ADD COLUMN commits TEXT;
  ALTER TABLE tasks ADD COLUMN changed_files TEXT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to SCHEMA_VERSION. The version is read again inside an IMMEDIATE transaction,
 * so two processes opening a fresh database at once do not both run a migration.
 */
export function migrate(db: Database.Database): void {
  const currentVersion = (): number => db.pragma('user_version', { simple: true }) as number;
  if (currentVersion() === SCHEMA_VERSION) return;
  const apply = db.transaction(() => {
    const from = currentVersion();
    if (from > SCHEMA_VERSION) {
      throw new Error(
        `the session database has schema version ${from}, newer than this cadre understands ` +
          `(${SCHEMA_VERSION}); upgrade cadre`,
      );
    }
    for (let version = from; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version]);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  });
  apply.immediate();
}
