import { resolve } from 'node:path';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { SafetyFloor } from '../permission/decide.js';
import {
  type CadrePermissionGate,
  createPermissionGate,
  type PermissionGateOptions,
  type ToolPolicy,
} from '../permission/gate.js';
import type { PromptFile } from '../profile/prompts.js';
import type { Profile } from '../profile/types.js';
import { readRegularTextFile } from '../util/read-text.js';

type Layers = Pick<PermissionGateOptions, 'toolPolicies' | 'config' | 'profile'>;

/**
 * The rule layers a session's gate is composed from (SPEC 6.4): the prompt's and profile's hard denies,
 * each config file's own `permission` block (global, then project), and the profile's `permission:` block.
 */
export function permissionLayers(loaded: LoadedConfig, profile?: Profile, prompt?: PromptFile): Layers {
  const toolPolicies: ToolPolicy[] = [];
  if (prompt && prompt.denyTools.length > 0) {
    toolPolicies.push({ owner: `prompt ${prompt.name}`, denyTools: prompt.denyTools, source: prompt.path });
  }
  if (profile) {
    toolPolicies.push({
      owner: `profile ${profile.name}`,
      denyTools: profile.denyTools,
      allowTools: profile.allowTools,
      source: profile.path ?? `${profile.source} profile`,
    });
  }
  return {
    toolPolicies,
    config: loaded.files
      .filter((f) => f.config.permission !== undefined)
      .map((f) => ({ file: f.path, text: f.text, block: f.config.permission })),
    profile: profile?.permission
      ? {
          name: profile.name,
          file: profile.permission.file,
          text: profile.permission.text,
          block: profile.permission.block,
        }
      : undefined,
  };
}

export interface SessionGateOptions {
  root: string;
  loaded: LoadedConfig;
  safety: SafetyFloor;
  profile?: Profile;
  prompt?: PromptFile;
  operator?: { file: string; text: string };
  yes: boolean;
  headless?: boolean;
}

/**
 * The main agent's gate from its layers (SPEC 6.4): one composition shared by the session itself,
 * `/why` and `cadre permissions explain`, so what explain prints is what the session decides.
 */
export function composeSessionGate(options: SessionGateOptions): CadrePermissionGate {
  return createPermissionGate({
    root: options.root,
    safety: options.safety,
    ...permissionLayers(options.loaded, options.profile, options.prompt),
    operator: options.operator,
    yes: options.yes,
    headless: options.headless,
  });
}

/** `--permissions <file>`: read once; a missing file is bad usage. */
export function readOperatorFile(path: string): { file: string; text: string } {
  const file = resolve(path);
  const read = readRegularTextFile(file);
  if (!read.ok) throw new ConfigError(`--permissions ${file}: ${read.reason}`);
  return { file, text: read.text };
}
