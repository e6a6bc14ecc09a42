import { resolve } from 'node:path';
import type { EmitEvent } from '../agent/events.js';
import type { AgentRuntime, RuntimeFlags } from '../agent/runtime.js';
import { ConfigError } from '../config/load.js';
import type { Workspace } from '../config/workspace.js';
import type { SafetyFloor } from '../permission/decide.js';
import { profileNames } from '../profile/load.js';
import type { LoadWarning } from '../profile/types.js';
import { resolveMainRoute } from '../provider/route.js';
import type { SessionStore } from '../session/store.js';

export { openWorkspace, resolveCwd, type Workspace } from '../config/workspace.js';

/** Fatal only where the user named something (SPEC 3.3): `--agent nope` lists the known names. */
export function requireProfile(workspace: Workspace, name: string | undefined): void {
  if (name === undefined || workspace.profiles.profiles.has(name)) return;
  throw new ConfigError(
    `unknown profile "${name}"; known profiles: ${profileNames(workspace.profiles).join(', ')}`,
  );
}

/** The command-line options every mode that runs an agent takes (SPEC 1). */
export interface AgentOptions {
  agent?: string;
  /** `--prompt NAME`: a prompt file selected at start (SPEC 4.1). */
  prompt?: string;
  model?: string;
  provider?: string;
  safety: SafetyFloor;
  permissions?: string;
  yes?: boolean;
  maxTurns?: number;
  /** `--trust-project`: the project is trusted for this run (applied when its config is loaded). */
  trustProject?: boolean;
}

/** Runtime flags from the agent options; the rest (`continue`, `resume`) is the caller's. */
export function agentFlags(options: AgentOptions): RuntimeFlags {
  return {
    agent: options.agent,
    prompt: options.prompt,
    model: options.model,
    provider: options.provider,
    safety: options.safety,
    // Resolved against where the user stands (not --cwd): the operator file is the user's, never the project's.
    permissions: options.permissions === undefined ? undefined : resolve(options.permissions),
    yes: options.yes === true,
    maxTurns: options.maxTurns,
  };
}

export function printWarnings(warnings: readonly LoadWarning[], stderr: { write(s: string): unknown }): void {
  for (const w of warnings) stderr.write(`cadre: warning: ${w.path}: ${w.reason}\n`);
}

/**
 * The session store and a started runtime for a workspace, for a command that drives the runtime itself
 * (`cadre subagent try|run`); sessions a person drives go through the session controller. The process's
 * working directory is never changed. The store is closed again when the start fails.
 */
export async function startRuntime(
  workspace: Workspace,
  flags: RuntimeFlags,
  emit: EmitEvent,
): Promise<{ runtime: AgentRuntime; store: SessionStore }> {
  const mainRoute = resolveMainRoute(workspace.loaded.config, flags, workspace.env);
  // Loaded here, not with this module: `cadre agents` and `explain` need neither the runtime nor SQLite.
  const [{ AgentRuntime }, { openSessionStore }] = await Promise.all([
    import('../agent/runtime.js'),
    import('../session/store.js'),
  ]);
  const store = openSessionStore(workspace.loaded.globalDir);
  try {
    const runtime = AgentRuntime.start({
      loaded: workspace.loaded,
      profiles: workspace.profiles,
      prompts: workspace.prompts,
      instructions: workspace.instructions,
      mainRoute,
      flags,
      env: workspace.env,
      cwd: workspace.cwd,
      emit,
      store,
    });
    return { runtime, store };
  } catch (error) {
    store.close();
    throw error;
  }
}
