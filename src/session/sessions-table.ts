import { definedEntries } from './defined.js';
import { sortableId } from './ids.js';
import type { SqlValue, StoreContext } from './sql.js';
import {
  type NewSession,
  SESSION_STATUSES,
  type SessionPatch,
  type SessionQuery,
  type SessionRecord,
  type SessionStatus,
} from './types.js';

const DEFAULT_LIST_LIMIT = 50;

interface SessionRow {
  id: string;
  parent_id: string | null;
  created_at: number;
  updated_at: number;
  project_root: string;
  cwd: string;
  agent: string | null;
  model: string | null;
  title: string | null;
  status: SessionStatus;
}

// SessionPatch keys, which are also their column names; only these reach the SQL text.
const PATCHABLE_COLUMNS: readonly (keyof SessionPatch)[] = ['agent', 'model', 'title', 'status'];

const COLUMNS = 'id, parent_id, created_at, updated_at, project_root, cwd, agent, model, title, status';

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    parentId: row.parent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    projectRoot: row.project_root,
    cwd: row.cwd,
    agent: row.agent,
    model: row.model,
    title: row.title,
    status: row.status,
  };
}

export interface SessionsTable {
  createSession(session: NewSession): SessionRecord;
  /** Exact id. */
  getSession(id: string): SessionRecord | undefined;
  updateSession(id: string, patch: SessionPatch): SessionRecord;
  /** The most recently updated top-level session of the project (for `--continue`). */
  lastSession(projectRoot: string): SessionRecord | undefined;
  /** Most recently updated first. */
  listSessions(query?: SessionQuery): SessionRecord[];
  /** Oldest first. */
  childSessions(id: string): SessionRecord[];
  /** Removes a session and everything recorded under it (a start that failed before its first turn). */
  deleteSession(id: string): void;
}

export function sessionsTable({ sql, now }: StoreContext): SessionsTable {
  const getSession = (id: string): SessionRecord | undefined => {
    const row = sql.get<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`, id);
    return row && toRecord(row);
  };

  return {
    createSession(session) {
      const createdAt = now();
      const id = sortableId(createdAt);
      sql.run(
        `INSERT INTO sessions (${COLUMNS})
         VALUES (@id, @parentId, @createdAt, @createdAt, @projectRoot, @cwd, @agent, @model, NULL, 'active')`,
        {
          id,
          parentId: session.parentId ?? null,
          createdAt,
          projectRoot: session.projectRoot,
          cwd: session.cwd,
          agent: session.agent ?? null,
          model: session.model ?? null,
        },
      );
      return getSession(id) as SessionRecord;
    },

    getSession,

    deleteSession(id) {
      sql.run('DELETE FROM sessions WHERE id = ?', id);
    },

    updateSession(id, patch) {
      if (patch.status !== undefined && !SESSION_STATUSES.includes(patch.status)) {
        throw new Error(
          `invalid session status "${patch.status}"; expected one of ${SESSION_STATUSES.join(', ')}`,
        );
      }
      // One UPDATE of just the given columns, so concurrent patches from other processes are not undone.
      const fields = definedEntries(patch);
      const values: Record<string, SqlValue> = { id, updatedAt: now() };
      let assignments = '';
      for (const key of PATCHABLE_COLUMNS) {
        if (!(key in fields)) continue;
        assignments += `${key} = @${key}, `;
        values[key] = fields[key] ?? null;
      }
      const { changes } = sql.run(
        `UPDATE sessions SET ${assignments}updated_at = @updatedAt WHERE id = @id`,
        values,
      );
      if (changes === 0) throw new Error(`no session with id "${id}"`);
      return getSession(id) as SessionRecord;
    },

    lastSession(projectRoot) {
      const row = sql.get<SessionRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE project_root = ? AND parent_id IS NULL
         ORDER BY updated_at DESC, id DESC LIMIT 1`,
        projectRoot,
      );
      return row && toRecord(row);
    },

    listSessions(query = {}) {
      const rows = sql.all<SessionRow>(
        `SELECT ${COLUMNS} FROM sessions
         WHERE (@projectRoot IS NULL OR project_root = @projectRoot)
           AND (@includeChildren = 1 OR parent_id IS NULL)
         ORDER BY updated_at DESC, id DESC LIMIT @limit`,
        {
          projectRoot: query.projectRoot ?? null,
          includeChildren: query.includeChildren ? 1 : 0,
          limit: query.limit ?? DEFAULT_LIST_LIMIT,
        },
      );
      return rows.map(toRecord);
    },

    childSessions(id) {
      const rows = sql.all<SessionRow>(
        `SELECT ${COLUMNS} FROM sessions WHERE parent_id = ? ORDER BY created_at, id`,
        id,
      );
      return rows.map(toRecord);
    },
  };
}
