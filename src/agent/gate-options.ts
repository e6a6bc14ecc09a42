import { resolve } from 'node:path';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { SafetyFloor } from '../permission/decide.js';
import {
  type CadrePermissionGate,
  createPermissionGate,
  type PermissionGateOptions,
  type ToolPolicy,
} from '../permission/gate.js';
import { isInside, realPath } from '../permission/paths.js';
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
  const projectFile = projectFileTest(loaded);
  return {
    toolPolicies,
    config: loaded.files
      .filter((f) => f.config.permission !== undefined)
      .map((f) => ({
        file: f.path,
        text: f.text,
        block: f.config.permission,
        scope: projectFile(f.path) ? 'project' : 'global',
      })),
    profile: profile?.permission
      ? {
          name: profile.name,
          file: profile.permission.file,
          text: profile.permission.text,
          block: profile.permission.block,
          scope: projectFile(profile.permission.file) || profile.source === 'mission' ? 'project' : 'global',
        }
      : undefined,
  };
}

/**
 * Files a cloned repository wrote: under the project root, or under a mission repository that the
 * project config names (SPEC 6.4, issue 15). The user's global config directory is never a project file.
 */
function projectFileTest(loaded: LoadedConfig): (path: string) => boolean {
  const roots = [realPath(loaded.projectRoot)];
  const projectMission = loaded.files.find((f) => !isInside(realPath(f.path), realPath(loaded.globalDir)))
    ?.config.mission_repo;
  if (projectMission) roots.push(realPath(resolve(loaded.projectRoot, projectMission)));
  const globalDir = realPath(loaded.globalDir);
  return (path) => {
    const real = realPath(resolve(path));
    return !isInside(real, globalDir) && roots.some((root) => isInside(real, root));
  };
}

/** Everything a run composes its gate from; runs, subagents and `permissions explain` share it. */
export interface GateInputs {
  loaded: LoadedConfig;
  profile?: Profile;
  prompt?: PromptFile;
  safety: SafetyFloor;
  yes: boolean;
  /** No user can answer an ask (headless without --yes). */
  headless: boolean;
  operator?: { file: string; text: string };
  projectTrusted?: boolean;
  /** Session approvals ("always allow"), the last layer. */
  approvals?: readonly string[];
  root?: string;
}

/** The options of the gate for these inputs (a subagent's gate is narrowed from them). */
export function gateOptionsFor(inputs: GateInputs): PermissionGateOptions {
  return {
    root: inputs.root ?? inputs.loaded.projectRoot,
    safety: inputs.safety,
    ...permissionLayers(inputs.loaded, inputs.profile, inputs.prompt),
    operator: inputs.operator,
    yes: inputs.yes,
    headless: inputs.headless,
    projectTrusted: inputs.projectTrusted ?? false,
  };
}

/**
 * The gate is composed here and only here (issue 15 point 8): a run, `permissions explain` and `/why`
 * decide through the same layers — floor, hard denies, built-in, config (global, project), profile,
 * operator, session approvals, the global ceiling, --yes and headless.
 */
export function composeGate(inputs: GateInputs): CadrePermissionGate {
  const gate = createPermissionGate(gateOptionsFor(inputs));
  for (const rule of inputs.approvals ?? []) gate.approve(rule);
  return gate;
}

/** `--permissions <file>`: read once; a missing file is bad usage. */
export function readOperatorFile(path: string): { file: string; text: string } {
  const file = resolve(path);
  const read = readRegularTextFile(file);
  if (!read.ok) throw new ConfigError(`--permissions ${file}: ${read.reason}`);
  return { file, text: read.text };
}
