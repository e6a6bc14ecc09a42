import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError, type LoadedConfig, loadConfig } from '../config/load.js';
import { loadProfiles, type ProfileRegistry, profileNames } from '../profile/load.js';
import { loadPrompts, type PromptSet } from '../profile/prompts.js';
import type { LoadWarning } from '../profile/types.js';

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
