import type { AgentRuntime, RuntimeFlags } from '../agent/runtime.js';
import { ConfigError } from '../config/load.js';
import type { SessionController } from '../controller/session-controller.js';
import { isAgentEvent } from '../controller/types.js';
import { PermissionRuleError } from '../permission/rules.js';
import { closeScriptedServersIfStarted } from '../provider/model.js';
import { probeSandboxAhead } from '../sandbox/sandbox.js';
import type { SessionStore } from '../session/store.js';
import { type AgentOptions, agentFlags, openWorkspace, printWarnings, requireProfile } from './bootstrap.js';
import { stopWhenOutputCloses } from './closed-output.js';
import { UsageError } from './errors.js';
import { HeadlessPrinter, type OutputFormat, type SubagentSummary, usageJson } from './output.js';
import { readTask } from './task-input.js';

export interface HeadlessOptions extends AgentOptions {
  print?: boolean;
  /** The task's words as given on the command line; empty: read standard input. */
  task: string[];
  outputFormat: OutputFormat;
  continue?: boolean;
  resume?: string;
  cwd?: string;
}

/**
 * `cadre -p`: one task to completion, the answer on stdout (SPEC 1). Returns the exit code. A thin client
 * of the session controller: the task goes through `submit`, so a leading `/command` runs that command.
 */
export async function runHeadlessCommand(options: HeadlessOptions): Promise<number> {
  const started = Date.now();
  let controller: SessionController;
  let task: string;
  const printer = new HeadlessPrinter(options.outputFormat, process.stdout, process.stderr);
  stopWhenOutputCloses();
  let store: SessionStore | undefined;
  try {
    task = readTask(options.task, {
      empty: 'no task: the task given to -p is empty',
      missing: 'no task: pass it as cadre -p "<task>" or on standard input',
    });
    const workspace = openWorkspace(options.cwd, process.env, { trustProject: options.trustProject });
    printWarnings(workspace.warnings, process.stderr);
    requireProfile(workspace, options.agent);
    const flags: RuntimeFlags = {
      ...agentFlags(options),
      continue: options.continue,
      resume: options.resume,
    };
    // Loaded here, not with this module: the controller pulls in the runtime and SQLite. The sandbox
    // probe runs meanwhile.
    const [{ SessionController }, { openSessionStore }] = await Promise.all([
      import('../controller/session-controller.js'),
      import('../session/store.js'),
      probeSandboxAhead(workspace.loaded.config.sandbox ?? 'auto'),
    ]);
    store = openSessionStore(workspace.loaded.globalDir);
    controller = await SessionController.open({ workspace, flags, store, interactive: false });
  } catch (error) {
    store?.close();
    if (error instanceof ConfigError || error instanceof UsageError || error instanceof PermissionRuleError) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  // From the first event on: warnings of the start (a profile's missing skill) were emitted before this.
  const subscription = controller.subscribe(
    ({ event }) => {
      if (isAgentEvent(event)) printer.event(event);
    },
    { after: 0 },
  );

  const onSignal = () => controller.interrupt();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const outcome = await controller.submit(task).outcome;
    // A route that cannot be built (a broken script, a missing base_url) is bad configuration.
    if (outcome.failure instanceof ConfigError) {
      // Text and json printed it already as the turn's error event; stream-json put that on stdout.
      if (options.outputFormat === 'stream-json') process.stderr.write(`cadre: ${outcome.failure.message}\n`);
      return 2;
    }
    const { runtime } = controller;
    // The review reads the project as the run left it, before the session closes (SPEC 4.3).
    const review = await runtime.reviewSession();
    // Whatever still runs (a cancelled or capped run's background tasks) is cancelled and recorded first,
    // so the summary reports every subagent's final state.
    await controller.close();
    const { usage, costUsd } = runtime.totals;
    printer.summary({
      result: outcome.text,
      session_id: runtime.session.id,
      is_error: outcome.isError,
      error: outcome.error,
      stop_reason: outcome.stopReason,
      num_turns: outcome.turns,
      duration_ms: Date.now() - started,
      model: runtime.modelRoute.model,
      usage: usageJson(usage),
      cost_usd: costUsd,
      subagents: subagentSummaries(runtime),
      permission_denials: runtime.permissionDenials,
      ...(runtime.approvalRecords ? { approvals: runtime.approvalRecords } : {}),
      ...(runtime.critic ? { critic: runtime.critic } : {}),
      ...(review ? { review } : {}),
    });
    // A command that could not run (unknown, bad arguments) is bad usage.
    if (outcome.stopReason === 'refused') return 2;
    return outcome.isError ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await controller.close();
    subscription.close();
    store?.close();
    await closeScriptedServersIfStarted();
  }
}

/**
 * Ends the process as soon as its output is flushed: the run is over and the store closed, so nothing
 * left in the event loop (a parser still compiling in the background, idle keep-alive sockets) may delay
 * the exit (issue 17). Exits with `process.exitCode`.
 */
export async function exitWhenFlushed(): Promise<never> {
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => stream.write('', () => resolve()));
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit();
}

/** The `subagents` list of the JSON result (SPEC 1, 7.4). */
export function subagentSummaries(runtime: AgentRuntime): SubagentSummary[] {
  return runtime.subagents.list().map((task) => ({
    id: task.id,
    profile: task.profile,
    description: task.description,
    status: task.state,
    background: task.background,
    session_id: task.childSessionId,
    model: task.model,
    usage: { input_tokens: task.usage.inputTokens, output_tokens: task.usage.outputTokens },
    cost_usd: task.costUsd,
    ...(task.batchId ? { batch_id: task.batchId } : {}),
    ...(task.fleet
      ? { fleet_id: task.fleet.id, fleet_item: task.fleet.item, skipped: task.skipped === true }
      : {}),
  }));
}
