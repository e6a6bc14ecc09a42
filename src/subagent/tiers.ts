import type { Tier } from '../profile/types.js';

const READONLY_UNIVERSE = [
  'read',
  'grep',
  'glob',
  'find_files',
  'list_dir',
  'repo_overview',
  'webfetch',
  'websearch',
];

/** Each tier's tool universe (SPEC 7.2). */
export const TIER_UNIVERSE: Readonly<Record<Tier, readonly string[]>> = {
  toolless: [],
  readonly: READONLY_UNIVERSE,
  readwrite: [
    ...READONLY_UNIVERSE,
    'write',
    'edit',
    'edit_lines',
    'apply_patch',
    'bash',
    'bash_output',
    'kill_shell',
  ],
};

/**
 * Stripped from every tooled subagent whatever else is said: delegation, session state and user
 * interaction belong to the main agent (SPEC 7.2).
 */
export const MANDATORY_FLOOR: readonly string[] = [
  'task',
  'task_status',
  'fleet',
  'write_todo_list',
  'skill',
  'question',
  'plan_enter',
  'plan_exit',
];

export interface ToolSetRequest {
  tier: Tier;
  /** The profile's `subagent_allow`: when given, only these (within the tier). */
  allow?: readonly string[];
  /** The profile's `subagent_deny`. */
  deny?: readonly string[];
  /** The `task` call's `tools`: may only narrow. */
  callTools?: readonly string[];
}

/** A subagent's built-in tool names: tier universe ∩ allow ∩ call tools − deny − floor. Allow never escalates. */
export function subagentToolNames(request: ToolSetRequest): string[] {
  const deny = new Set([...(request.deny ?? []), ...MANDATORY_FLOOR]);
  return TIER_UNIVERSE[request.tier].filter(
    (name) =>
      (request.allow === undefined || request.allow.includes(name)) &&
      (request.callTools === undefined || request.callTools.includes(name)) &&
      !deny.has(name),
  );
}
