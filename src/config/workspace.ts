import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { type InstructionsFile, loadInstructions } from '../profile/instructions.js';
import { loadProfiles, type ProfileRegistry } from '../profile/load.js';
import { loadPrompts, type PromptSet } from '../profile/prompts.js';
import type { LoadWarning } from '../profile/types.js';
import { ConfigError, type LoadedConfig, type LoadOptions, loadConfig } from './load.js';

/** What a directory's configuration amounts to: config files, profiles and prompt files. */
export interface Workspace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  loaded: LoadedConfig;
  profiles: ProfileRegistry;
  prompts: PromptSet;
  /** AGENTS.md / CLAUDE.md files loaded for the main agent's system prompt. */
  instructions: InstructionsFile[];
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
export function openWorkspace(
  cwdFlag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): Workspace {
  const cwd = resolveCwd(cwdFlag);
  const loaded = loadConfig(cwd, env, options);
  const home = env.HOME ?? homedir();
  const profiles = loadProfiles({
    projectRoot: loaded.projectRoot,
    globalDir: loaded.globalDir,
    home,
    config: loaded.config,
    configFiles: loaded.files,
  });
  const prompts = loadPrompts({ projectRoot: loaded.projectRoot, globalDir: loaded.globalDir });
  const instructions = loadInstructions({
    globalDir: loaded.globalDir,
    projectRoot: loaded.projectRoot,
    cwd,
  });
  return {
    cwd,
    env,
    loaded,
    profiles,
    prompts,
    instructions: instructions.files,
    warnings: [
      ...(loaded.untrustedWarning ? [loaded.untrustedWarning] : []),
      ...profiles.warnings,
      ...prompts.warnings,
      ...instructions.warnings,
    ],
  };
}
