import { existsSync, realpathSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../config/load.js';
import { processIsAlive } from '../../session/process-alive.js';
import type { SessionStore, TaskRecord } from '../../session/store.js';
import { discardRetained, MergeRefused, mergeRetained, type RetainedWriter } from '../../worktree/merge.js';
import { inspectWorktree } from '../../worktree/worktree.js';
import { resolveCwd } from '../bootstrap.js';
import { UsageError } from '../errors.js';

export interface TasksOptions {
  json?: boolean;
  yes?: boolean;
  cwd?: string;
  /** Where CADRE_CONFIG_DIR is read from (the demo runs against its own). */
  env?: NodeJS.ProcessEnv;
}

/** What `cadre tasks` shows of one task: the record, with a writer's worktree looked at now. */
interface TaskView {
  id: string;
  status: string;
  profile: string | null;
  tier: string | null;
  batch: string | null;
  description: string | null;
  prompt: string;
  retry_of: string | null;
  isolation: string | null;
  /** `active`, `retained`, `removed`, `merged`, `discarded`; `retained` too for one a crash left behind. */
  worktree: string | null;
  branch: string | null;
  commits: string[];
  changed_files: string[];
  salvage_path: string | null;
  created_at: number;
  ended_at: number | null;
  error: string | null;
  result?: string | null;
}

const IN_USE = new Set(['active', 'retained']);

function ownerAlive(pid: number | null): boolean {
  return pid !== null && pid !== process.pid && processIsAlive(pid);
}

async function viewOf(task: TaskRecord, withResult: boolean): Promise<TaskView> {
  let worktree: string | null = task.worktreeState;
  let commits = task.commits ?? [];
  let changed = task.changedFiles ?? [];
  const path = task.worktreePath;
  if (worktree && IN_USE.has(worktree) && path && task.branch && task.worktreeBase && task.repoRoot) {
    // A crash leaves a worktree `active` with nobody running it: it is retained for salvage.
    if (worktree === 'active' && !ownerAlive(task.ownerPid)) worktree = 'retained';
    if (existsSync(path)) {
      const state = await inspectWorktree(task.repoRoot, {
        path,
        branch: task.branch,
        base: task.worktreeBase,
      }).catch(() => undefined);
      if (state) {
        commits = state.commits;
        changed = state.changedFiles;
      }
    } else worktree = 'missing';
  }
  return {
    id: task.id,
    status: task.status,
    profile: task.profile,
    tier: task.tier,
    batch: task.batchId,
    description: task.description,
    prompt: task.prompt,
    retry_of: task.retryOf,
    isolation: task.isolation,
    worktree,
    branch: task.branch,
    commits,
    changed_files: changed,
    salvage_path: worktree === 'retained' || worktree === 'active' ? path : null,
    created_at: task.createdAt,
    ended_at: task.endedAt,
    error: task.error,
    ...(withResult ? { result: task.result } : {}),
  };
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function worktreeSummary(view: TaskView): string {
  if (!view.worktree) return view.isolation === 'serialize' ? 'serialized' : '';
  const commits =
    view.commits.length > 0 ? `, ${view.commits.length} commit${view.commits.length === 1 ? '' : 's'}` : '';
  return `worktree ${view.worktree}${commits}`;
}

function listText(views: TaskView[]): string {
  if (views.length === 0) return 'No subagent tasks recorded for this project.\n';
  const rows = views.map((v) => [
    v.id,
    v.status,
    v.profile ?? 'default',
    v.batch ?? '-',
    worktreeSummary(v) || '-',
    oneLine(v.description ?? v.prompt, 60),
  ]);
  const widths = rows[0].slice(0, -1).map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]) : cell)).join('  '),
  );
  const retained = views.filter((v) => v.worktree === 'retained');
  const hint =
    retained.length > 0
      ? `\n${retained.length} retained worktree${retained.length === 1 ? '' : 's'}: cadre tasks show ID, then cadre tasks merge ID or cadre tasks discard ID --yes\n`
      : '';
  return `${lines.join('\n')}\n${hint}`;
}

function showText(v: TaskView): string {
  const lines = [
    `task ${v.id}`,
    `status: ${v.status}`,
    `profile: ${v.profile ?? 'default subagent'}${v.tier ? ` (${v.tier})` : ''}`,
    ...(v.batch ? [`batch: ${v.batch}`] : []),
    ...(v.retry_of ? [`retry of: ${v.retry_of}`] : []),
    `prompt: ${oneLine(v.prompt, 2000)}`,
    ...(v.isolation
      ? [`isolation: ${v.isolation === 'worktree' ? 'worktree' : 'serialized parent checkout'}`]
      : []),
    ...(v.worktree ? [`worktree: ${v.worktree}`] : []),
    ...(v.branch ? [`branch: ${v.branch}`] : []),
    ...(v.commits.length > 0 ? [`commits: ${v.commits.join(', ')}`] : []),
    ...(v.changed_files.length > 0 ? [`changed files: ${v.changed_files.join(', ')}`] : []),
    ...(v.salvage_path ? [`salvage path: ${v.salvage_path}`] : []),
    ...(v.error ? [`error: ${v.error}`] : []),
  ];
  const result = v.result ? `\n${v.result.trimEnd()}\n` : '';
  return `${lines.join('\n')}\n${result}`;
}

interface Context {
  store: SessionStore;
  projectRoot: string;
  cwd: string;
}

/** A task by id or unambiguous prefix; a clear UsageError otherwise. */
function findTask(context: Context, id: string | undefined): TaskRecord {
  if (!id) throw new UsageError('which task? give its id (or a unique prefix): cadre tasks list shows them');
  let task: TaskRecord | undefined;
  try {
    task = context.store.getTask(id);
  } catch (error) {
    if (error instanceof Error && error.name === 'AmbiguousTaskIdError') throw new UsageError(error.message);
    throw error;
  }
  if (!task) throw new UsageError(`unknown task "${id}"; cadre tasks list shows the tasks of this project`);
  return task;
}

function retainedWriter(task: TaskRecord, verb: string): RetainedWriter {
  const state = task.worktreeState;
  if (!task.branch || !task.worktreePath || !task.worktreeBase || !task.repoRoot || !state)
    throw new MergeRefused(`task ${task.id} has no writer worktree to ${verb}`);
  if (!IN_USE.has(state))
    throw new MergeRefused(`task ${task.id}'s worktree was already ${state}; nothing to ${verb}`);
  if (state === 'active' && ownerAlive(task.ownerPid))
    throw new MergeRefused(
      `task ${task.id} is still running (cadre process ${task.ownerPid}); cancel it first`,
    );
  return {
    taskId: task.id,
    description: task.description ?? task.prompt,
    branch: task.branch,
    path: task.worktreePath,
    base: task.worktreeBase,
    repoRoot: task.repoRoot,
  };
}

async function run(
  action: string,
  id: string | undefined,
  options: TasksOptions,
  context: Context,
): Promise<number> {
  const out = process.stdout;
  switch (action) {
    case 'list': {
      const tasks = context.store.listTasks({ projectRoot: context.projectRoot });
      const views = await Promise.all(tasks.map((t) => viewOf(t, false)));
      out.write(options.json ? `${JSON.stringify(views, null, 2)}\n` : listText(views));
      return 0;
    }
    case 'show': {
      const view = await viewOf(findTask(context, id), true);
      out.write(options.json ? `${JSON.stringify(view, null, 2)}\n` : showText(view));
      return 0;
    }
    case 'merge': {
      const task = findTask(context, id);
      const writer = retainedWriter(task, 'merge');
      const merged = await mergeRetained(context.cwd, writer);
      context.store.updateTask(task.id, { worktreeState: 'merged' });
      out.write(
        `merged ${writer.branch} (${merged.commits} commit${merged.commits === 1 ? '' : 's'}) into ${merged.into} as ${merged.sha}; removed its worktree and branch\n`,
      );
      return 0;
    }
    case 'discard': {
      const task = findTask(context, id);
      const writer = retainedWriter(task, 'discard');
      if (!options.yes)
        throw new UsageError(
          `discard removes the worktree ${writer.path} and the branch ${writer.branch}, with any work in them; run again with --yes`,
        );
      await discardRetained(writer);
      context.store.updateTask(task.id, { worktreeState: 'discarded' });
      out.write(`discarded task ${task.id}: removed ${writer.path} and branch ${writer.branch}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown action "${action}"; expected list, show ID, merge ID or discard ID`);
  }
}

/** `cadre tasks [list|show ID|merge ID|discard ID]` (SPEC 1, 9) over the session store. */
export async function runTasksCommand(
  action: string | undefined,
  id: string | undefined,
  options: TasksOptions,
): Promise<number> {
  let store: SessionStore | undefined;
  try {
    const cwd = resolveCwd(options.cwd);
    const loaded = loadConfig(cwd, options.env);
    const { openSessionStore } = await import('../../session/store.js');
    store = openSessionStore(loaded.globalDir);
    return await run(action ?? 'list', id, options, {
      store,
      projectRoot: realpathSync(loaded.projectRoot),
      cwd,
    });
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    if (error instanceof MergeRefused) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    store?.close();
  }
}
