import type { ModelMessage } from 'ai';
import type { EmitEvent } from '../agent/events.js';
import type { ModelCaller } from '../agent/model-stream.js';
import type { Asker, PermissionDenialRecord } from '../agent/tool-runner.js';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { CadrePermissionGate, PermissionGateOptions } from '../permission/gate.js';
import type { InstructionsFile } from '../profile/instructions.js';
import type { ProfileRegistry } from '../profile/load.js';
import type { Profile } from '../profile/types.js';
import type { ModelParams, ModelRoute } from '../provider/route.js';
import type { ShellSandbox } from '../sandbox/sandbox.js';
import type { SessionStore } from '../session/store.js';
import type { AnyTool } from '../tool/tool.js';
import type { FleetItemLaunch } from './fleet-run.js';
import type { SchedulerLimits } from './scheduler.js';
import type { WriterSandbox } from './writer-sandbox.js';

/** What the manager needs from the session that owns it. */
export interface SubagentHost {
  projectRoot: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  profiles: ProfileRegistry;
  mainRoute: ModelRoute;
  parentSessionId: string;
  store: SessionStore;
  /** The parent's current gate: children are composed under its ceiling (SPEC 6.7). */
  parentGate(): CadrePermissionGate;
  /** A child's own composition: its profile's policies and rules plus the session-wide ones. */
  childGateOptions(profile: Profile | undefined): Omit<PermissionGateOptions, 'ceiling'>;
  emit: EmitEvent;
  ask: Asker;
  /** Every child denial, for `permission_denials` of the whole run. */
  onDenied(record: PermissionDenialRecord): void;
  /** The session's "always allow" approvals, and where a child's new ones go (they hold for the session). */
  approvals(): readonly string[];
  onApproved(rule: string): void;
  mcpTools(): AnyTool[];
  modelCaller(route: ModelRoute, params: ModelParams): Promise<ModelCaller>;
  /** The parent's conversation so far, for the review built-ins' facts pack (SPEC 3.4). */
  parentMessages(): readonly ModelMessage[];
  /** Aborted when the whole session is cancelled; background tasks live as long as it. */
  sessionSignal: AbortSignal;
  /** The run's OS sandbox: children's shell commands run in it, isolated writers rooted at their worktree. */
  sandbox?: ShellSandbox;
  /** Replaces the writer view of `sandbox` (tests). */
  writerSandbox?: WriterSandbox;
  /** Whether the main agent may dispatch a profile (no `task(<name>)` deny); default: every profile. */
  mayDispatch?(name: string): boolean;
  /** AGENTS.md / CLAUDE.md files, for children whose profile asks for them (`instructions: true`). */
  instructions?: readonly InstructionsFile[];
}

/** How a dispatch is run beyond what the `task` call says (the `cadre subagent try|run` commands). */
export interface DispatchOptions {
  /** The dispatching agent, 'main' or a subagent id: the parent link of the asking chain. Default 'main'. */
  parent?: string;
  /** The readonly runner of `cadre subagent try`: no write-class tool reaches the model (SPEC 11). */
  readOnlyRunner?: boolean;
  /** Level 5 of SPEC 7.6 given by the user (`subagent run --model`): used where nothing above it chose. */
  defaultModel?: string;
  /** A fleet item (SPEC 10), launched by the fleet runner. */
  fleetItem?: FleetItemLaunch;
}

/** Coordinated batches run at most this many tasks at once (SPEC 8). */
const BATCH_RUNNING_CAP = 4;

export class SubagentError extends Error {
  override name = 'SubagentError';
}

/** The scheduler limits of a config, checked (SPEC 10): bad values are a configuration error. */
export function schedulerLimits(config: Config): SchedulerLimits {
  const total = config.max_subagent_concurrency ?? 6;
  const writers = config.max_parallel_writers ?? Math.min(3, total);
  if (writers > total) {
    throw new ConfigError(
      `max_parallel_writers (${writers}) may not be above max_subagent_concurrency (${total})`,
    );
  }
  return { total, writers, batch: Math.min(BATCH_RUNNING_CAP, total) };
}

/** Why a task was stopped, in words (a timeout says nothing: its own outcome says it timed out). */
export function cancelReason(signal: AbortSignal): string {
  const reason = signal.reason;
  if (reason instanceof SubagentError) return reason.message;
  if (reason instanceof Error && reason.name !== 'TimeoutError' && reason.message) return reason.message;
  return 'cancelled';
}
