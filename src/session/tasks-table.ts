import { definedEntries } from './defined.js';
import { shortRandomId } from './ids.js';
import { processIsAlive } from './process-alive.js';
import type { SqlValue, StoreContext } from './sql.js';
import {
  type NewTask,
  TASK_STATUSES,
  type TaskPatch,
  type TaskQuery,
  type TaskRecord,
  type TaskStatus,
  type TaskTier,
  type WorktreeState,
  type WriterIsolation,
} from './types.js';

const DEFAULT_LIST_LIMIT = 100;
const AMBIGUITY_CANDIDATES_SHOWN = 10;

/** A task id prefix that matches more than one task. */
export class AmbiguousTaskIdError extends Error {
  constructor(
    readonly prefix: string,
    /** The first matching ids, in order; `more` says whether others were left out. */
    readonly candidates: string[],
    readonly more: boolean,
  ) {
    super(`task id "${prefix}" is ambiguous; it matches ${candidates.join(', ')}${more ? ' and more' : ''}`);
    this.name = 'AmbiguousTaskIdError';
  }
}

interface TaskRow {
  id: string;
  parent_session_id: string;
  child_session_id: string | null;
  profile: string | null;
  tier: TaskTier | null;
  model: string | null;
  description: string | null;
  prompt: string;
  status: TaskStatus;
  background: number;
  result: string | null;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  isolation: WriterIsolation | null;
  worktree_path: string | null;
  branch: string | null;
  retry_of: string | null;
  owner_pid: number | null;
  write_paths: string | null;
  batch_id: string | null;
  repo_root: string | null;
  worktree_base: string | null;
  worktree_state: WorktreeState | null;
  commits: string | null;
  changed_files: string | null;
}

const COLUMNS = `tasks.id, tasks.parent_session_id, tasks.child_session_id, tasks.profile, tasks.tier,
  tasks.model, tasks.description, tasks.prompt, tasks.status, tasks.background, tasks.result, tasks.error,
  tasks.input_tokens, tasks.output_tokens, tasks.cost_usd, tasks.created_at, tasks.started_at,
  tasks.ended_at, tasks.isolation, tasks.worktree_path, tasks.branch, tasks.retry_of, tasks.owner_pid,
  tasks.write_paths, tasks.batch_id, tasks.repo_root, tasks.worktree_base, tasks.worktree_state,
  tasks.commits, tasks.changed_files`;

function jsonList(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as string[]);
}

function toRecord(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    parentSessionId: row.parent_session_id,
    childSessionId: row.child_session_id,
    profile: row.profile,
    tier: row.tier,
    model: row.model,
    description: row.description,
    prompt: row.prompt,
    status: row.status,
    background: row.background === 1,
    result: row.result,
    error: row.error,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    isolation: row.isolation,
    worktreePath: row.worktree_path,
    branch: row.branch,
    retryOf: row.retry_of,
    ownerPid: row.owner_pid,
    writePaths: jsonList(row.write_paths),
    batchId: row.batch_id,
    repoRoot: row.repo_root,
    worktreeBase: row.worktree_base,
    worktreeState: row.worktree_state,
    commits: jsonList(row.commits),
    changedFiles: jsonList(row.changed_files),
  };
}

// TaskPatch key → column. Every key of TaskPatch must appear, which the Record type enforces.
const PATCH_COLUMNS: Record<keyof TaskPatch, string> = {
  childSessionId: 'child_session_id',
  model: 'model',
  status: 'status',
  result: 'result',
  error: 'error',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  costUsd: 'cost_usd',
  startedAt: 'started_at',
  endedAt: 'ended_at',
  isolation: 'isolation',
  worktreePath: 'worktree_path',
  branch: 'branch',
  repoRoot: 'repo_root',
  worktreeBase: 'worktree_base',
  worktreeState: 'worktree_state',
  commits: 'commits',
  changedFiles: 'changed_files',
};

/** Patch fields stored as JSON text. */
const JSON_PATCH_KEYS: ReadonlySet<keyof TaskPatch> = new Set(['commits', 'changedFiles']);

function checkStatus(status: TaskStatus | undefined): void {
  if (status !== undefined && !TASK_STATUSES.includes(status)) {
    throw new Error(`invalid task status "${status}"; expected one of ${TASK_STATUSES.join(', ')}`);
  }
}

export interface TasksTable {
  createTask(task: NewTask): TaskRecord;
  /** Sets the given fields; absent or undefined fields are left as they are. Exact id. */
  updateTask(id: string, patch: TaskPatch): TaskRecord;
  /**
   * By exact id, else by a unique id prefix. Undefined when nothing matches; throws
   * AmbiguousTaskIdError (listing the candidates) when the prefix matches several.
   */
  getTask(idOrPrefix: string): TaskRecord | undefined;
  /** Newest first. `projectRoot` selects tasks whose parent session belongs to that project. */
  listTasks(query?: TaskQuery): TaskRecord[];
  /**
   * Marks queued and running tasks whose owning process has exited as interrupted (a crash or kill
   * leaves them so), so `cadre tasks` does not report them running forever and they can be retried.
   * Returns the tasks it changed.
   */
  interruptOrphanedTasks(isAlive?: (pid: number) => boolean): TaskRecord[];
}

export function tasksTable({ sql, now, pid }: StoreContext): TasksTable {
  const byId = (id: string): TaskRecord | undefined => {
    const row = sql.get<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`, id);
    return row && toRecord(row);
  };

  return {
    createTask(task) {
      checkStatus(task.status);
      const id = shortRandomId();
      sql.run(
        `INSERT INTO tasks (id, parent_session_id, profile, tier, model, description, prompt, status,
           background, created_at, retry_of, owner_pid, write_paths, batch_id)
         VALUES (@id, @parentSessionId, @profile, @tier, @model, @description, @prompt, @status,
           @background, @createdAt, @retryOf, @ownerPid, @writePaths, @batchId)`,
        {
          id,
          parentSessionId: task.parentSessionId,
          profile: task.profile ?? null,
          tier: task.tier ?? null,
          model: task.model ?? null,
          description: task.description ?? null,
          prompt: task.prompt,
          status: task.status ?? 'queued',
          background: task.background ? 1 : 0,
          createdAt: now(),
          retryOf: task.retryOf ?? null,
          ownerPid: pid,
          writePaths: task.writePaths ? JSON.stringify(task.writePaths) : null,
          batchId: task.batchId ?? null,
        },
      );
      return byId(id) as TaskRecord;
    },

    updateTask(id, patch) {
      checkStatus(patch.status);
      const fields = definedEntries(patch);
      // Only known keys reach the SQL text, whatever else a caller's object carries.
      const keys = (Object.keys(PATCH_COLUMNS) as (keyof TaskPatch)[]).filter((key) => key in fields);
      if (keys.length > 0) {
        const assignments = keys.map((key) => `${PATCH_COLUMNS[key]} = @${key}`).join(', ');
        const values: Record<string, SqlValue> = { id };
        for (const key of keys) {
          const value = fields[key];
          values[key] =
            JSON_PATCH_KEYS.has(key) && value !== null
              ? JSON.stringify(value)
              : ((value as SqlValue) ?? null);
        }
        const { changes } = sql.run(`UPDATE tasks SET ${assignments} WHERE id = @id`, values);
        if (changes === 0) throw new Error(`no task with id "${id}"`);
      }
      const updated = byId(id);
      if (!updated) throw new Error(`no task with id "${id}"`);
      return updated;
    },

    getTask(idOrPrefix) {
      if (idOrPrefix === '') return undefined;
      const exact = byId(idOrPrefix);
      if (exact) return exact;
      // A range on the primary key rather than LIKE: the index is used and `%`/`_` in input mean nothing.
      const matches = sql.all<{ id: string }>(
        'SELECT id FROM tasks WHERE id >= ? AND id < ? ORDER BY id LIMIT ?',
        idOrPrefix,
        `${idOrPrefix}\u{10ffff}`,
        AMBIGUITY_CANDIDATES_SHOWN + 1,
      );
      if (matches.length === 0) return undefined;
      if (matches.length > 1) {
        const shown = matches.slice(0, AMBIGUITY_CANDIDATES_SHOWN).map((match) => match.id);
        throw new AmbiguousTaskIdError(idOrPrefix, shown, matches.length > AMBIGUITY_CANDIDATES_SHOWN);
      }
      return byId(matches[0].id);
    },

    listTasks(query = {}) {
      checkStatus(query.status);
      const rows = sql.all<TaskRow>(
        `SELECT ${COLUMNS} FROM tasks JOIN sessions ON sessions.id = tasks.parent_session_id
         WHERE (@parentSessionId IS NULL OR tasks.parent_session_id = @parentSessionId)
           AND (@projectRoot IS NULL OR sessions.project_root = @projectRoot)
           AND (@status IS NULL OR tasks.status = @status)
         ORDER BY tasks.created_at DESC, tasks.rowid DESC LIMIT @limit`,
        {
          parentSessionId: query.parentSessionId ?? null,
          projectRoot: query.projectRoot ?? null,
          status: query.status ?? null,
          limit: query.limit ?? DEFAULT_LIST_LIMIT,
        },
      );
      return rows.map(toRecord);
    },

    interruptOrphanedTasks(isAlive = processIsAlive) {
      const unfinished = sql.all<{ id: string; owner_pid: number }>(
        "SELECT id, owner_pid FROM tasks WHERE status IN ('queued', 'running') AND owner_pid IS NOT NULL",
      );
      const orphans = unfinished.filter((task) => task.owner_pid !== pid && !isAlive(task.owner_pid));
      return sql.transaction(() =>
        orphans.flatMap((task) => {
          // Re-checks the status: another process may have settled the task since it was read.
          const { changes } = sql.run(
            `UPDATE tasks SET status = 'interrupted', error = ?, ended_at = ?
             WHERE id = ? AND status IN ('queued', 'running')`,
            `interrupted: the cadre process running it (pid ${task.owner_pid}) exited before it finished`,
            now(),
            task.id,
          );
          const updated = changes === 1 ? byId(task.id) : undefined;
          return updated ? [updated] : [];
        }),
      );
    },
  };
}
