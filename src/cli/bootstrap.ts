import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { EmitEvent } from '../agent/events.js';
import type { AgentRuntime, RuntimeFlags } from '../agent/runtime.js';
import { ConfigError, type LoadedConfig, loadConfig } from '../config/load.js';
import { loadProfiles, type ProfileRegistry, profileNames } from '../profile/load.js';
import { loadPrompts, type PromptSet } from '../profile/prompts.js';
import type { LoadWarning } from '../profile/types.js';
import { resolveMainRoute } from '../provider/route.js';
import type { SessionStore } from '../session/store.js';

export interface Workspace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  loaded: LoadedConfig;
  profiles: ProfileRegistry;
  prompts: PromptSet;
  warnings: LoadWarning[];
}

/** `--cwd`: the directory must exist; everything else resolves from it. */
export function resolveCwd(dir: string | undefined): string {
  const cwd = resolve(dir ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw new ConfigError(`--cwd ${dir}: not a directory`);
  return cwd;
}

/** Config, profiles and prompt files: what every command that knows about profiles starts from. */
export function openWorkspace(cwdFlag: string | undefined, env: NodeJS.ProcessEnv = process.env): Workspace {
  const cwd = resolveCwd(cwdFlag);
  const loaded = loadConfig(cwd, env);
  const home = env.HOME ?? homedir();
  const profiles = loadProfiles({
    projectRoot: loaded.projectRoot,
    globalDir: loaded.globalDir,
    home,
    config: loaded.config,
    configFiles: loaded.files,
  });
  const prompts = loadPrompts({ projectRoot: loaded.projectRoot, globalDir: loaded.globalDir });
  return { cwd, env, loaded, profiles, prompts, warnings: [...profiles.warnings, ...prompts.warnings] };
}

/** Fatal only where the user named something (SPEC 3.3): `--agent nope` lists the known names. */
export function requireProfile(workspace: Workspace, name: string | undefined): void {
  if (name === undefined || workspace.profiles.profiles.has(name)) return;
  throw new ConfigError(
    `unknown profile "${name}"; known profiles: ${profileNames(workspace.profiles).join(', ')}`,
  );
}

export function printWarnings(warnings: readonly LoadWarning[], stderr: { write(s: string): unknown }): void {
  for (const w of warnings) stderr.write(`cadre: warning: ${w.path}: ${w.reason}\n`);
}

/**
 * The session store and a started runtime for a workspace, run from its directory: what every command that
 * runs an agent does after its own checks. The store is closed again when the start fails.
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
    process.chdir(workspace.cwd);
    const runtime = AgentRuntime.start({
      loaded: workspace.loaded,
      profiles: workspace.profiles,
      prompts: workspace.prompts,
      mainRoute,
      flags,
      env: workspace.env,
      emit,
      store,
    });
    return { runtime, store };
  } catch (error) {
    store.close();
    throw error;
  }
}
