import { resolve } from 'node:path';
import type { AgentEvent } from '../../../agent/events.js';
import type { AgentRuntime, RuntimeFlags } from '../../../agent/runtime.js';
import { ConfigError } from '../../../config/load.js';
import { PermissionRuleError } from '../../../permission/rules.js';
import type { SessionStore } from '../../../session/store.js';
import { writerLines } from '../../../subagent/reconciliation.js';
import type { LiveTask } from '../../../subagent/task-record.js';
import { requireProfile, startRuntime } from '../../bootstrap.js';
import { UsageError } from '../../errors.js';
import { subagentSummaries } from '../../headless.js';
import { HeadlessPrinter, usageJson } from '../../output.js';
import { readTask } from '../../task-input.js';
import type { RunnerOptions } from './cli.js';
import { openProject } from './context.js';
import { progressPrinter } from './progress.js';

/**
 * `cadre subagent try|run <name> <task>` (SPEC 11): the profile runs as a real subagent through the same
 * dispatch, scheduler and task record as the `task` tool. `try` uses the readonly runner (the read-only
 * floor and tier: no write-class tool reaches the model); `run` the normal one, where permission denies
 * and the sandbox still apply. Answer on stdout, progress on stderr, exit codes as headless.
 */
export async function runProfileCommand(
  mode: 'try' | 'run',
  name: string,
  words: string[],
  options: RunnerOptions,
): Promise<number> {
  const started = Date.now();
  const format = options.outputFormat ?? 'text';
  const printer = new HeadlessPrinter(format, process.stdout, process.stderr);
  const readOnly = mode === 'try';
  let runtime: AgentRuntime | undefined;
  let store: SessionStore | undefined;
  const turns = new Map<string, number>();
  const progress = progressPrinter(process.stderr, readOnly ? 'readonly' : 'normal', (id) =>
    runtime?.subagents.list().find((t) => t.id === id),
  );
  const emit = (event: AgentEvent) => {
    if (event.type === 'turn_end') turns.set(event.agent, (turns.get(event.agent) ?? 0) + 1);
    if (format !== 'stream-json') progress(event);
    printer.event(event);
  };
  try {
    const task = readTask(words, {
      empty: `no task: the task given to cadre subagent ${mode} is empty`,
      missing: `no task: pass it as cadre subagent ${mode} ${name} "<task>" or on standard input`,
    });
    const workspace = openProject(options);
    requireProfile(workspace, name);
    const flags: RuntimeFlags = {
      model: options.model,
      // The readonly runner's floor: nothing above read is offered or run, whatever the profile says.
      safety: readOnly ? 'read-only' : (options.safety ?? 'full'),
      // Resolved against where the user stands (not --cwd): the operator file is the user's, never the project's.
      permissions: options.permissions === undefined ? undefined : resolve(options.permissions),
      yes: options.yes === true,
    };
    ({ runtime, store } = await startRuntime(workspace, flags, emit));
    await runtime.connectMcp();
    return await delegate(runtime, { mode, name, task, options, started, printer, turns });
  } catch (error) {
    if (isBadInput(error)) {
      process.stderr.write(`cadre: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await runtime?.close();
    store?.close();
    const { closeScriptedServers } = await import('../../../provider/scripted-route.js');
    await closeScriptedServers();
  }
}

function isBadInput(error: unknown): boolean {
  return (
    error instanceof ConfigError ||
    error instanceof UsageError ||
    error instanceof PermissionRuleError ||
    (error instanceof Error && error.name === 'SubagentError')
  );
}

interface DelegateContext {
  mode: 'try' | 'run';
  name: string;
  task: string;
  options: RunnerOptions;
  started: number;
  printer: HeadlessPrinter;
  turns: Map<string, number>;
}

async function delegate(runtime: AgentRuntime, context: DelegateContext): Promise<number> {
  const { name, task, options, printer } = context;
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let finished: LiveTask;
  try {
    finished = await runtime.delegate(
      {
        profile: name,
        task,
        readOnly: context.mode === 'try',
        model: options.model,
        maxSteps: options.maxSteps,
      },
      controller.signal,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  await runtime.close();
  const isError = finished.state !== 'completed';
  // A writer's branch and salvage lines, as the reconciliation shows them (SPEC 8, 9).
  const writer = finished.writer ? writerLines(finished.writer) : [];
  if (finished.writer?.isolation === 'worktree' && !finished.writer.removed) {
    writer.push(
      `merge it with cadre tasks merge ${finished.id}, or drop it with cadre tasks discard ${finished.id} --yes`,
    );
  }
  for (const line of [...writer, ...(finished.notes ?? [])])
    process.stderr.write(`cadre: ${name}: ${line}\n`);
  printer.summary({
    result: finished.result ?? '',
    session_id: runtime.session.id,
    is_error: isError,
    error: isError
      ? `${name} ${finished.state.replace('_', ' ')}: ${finished.error ?? 'no reason given'}`
      : undefined,
    stop_reason: finished.state,
    num_turns: context.turns.get(finished.id) ?? 0,
    duration_ms: Date.now() - context.started,
    model: finished.model,
    usage: usageJson(finished.usage),
    cost_usd: finished.costUsd,
    subagents: subagentSummaries(runtime),
    permission_denials: runtime.permissionDenials,
    ...(finished.writer ? { writer: finished.writer } : {}),
  });
  return isError ? 1 : 0;
}
