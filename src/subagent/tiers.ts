import type { Tier } from '../profile/types.js';
import { READER_TOOLS, SESSION_TOOLS, WRITER_TOOLS } from '../tool/names.js';

/** Each tier's tool universe (SPEC 7.2). */
export const TIER_UNIVERSE: Readonly<Record<Tier, readonly string[]>> = {
  toolless: [],
  readonly: READER_TOOLS,
  readwrite: [...READER_TOOLS, ...WRITER_TOOLS],
};

/**
 * Stripped from every tooled subagent whatever else is said: delegation, session state and user
 * interaction belong to the main agent (SPEC 7.2).
 */
export const MANDATORY_FLOOR: readonly string[] = SESSION_TOOLS;

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
