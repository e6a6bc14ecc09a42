import type { ParsedRules } from '../permission/rules.js';

/** Where a profile came from, highest precedence first (SPEC 3.1). */
export const PROFILE_SOURCES = [
  'project',
  'project-skill',
  'global',
  'global-skill',
  'mission',
  'claude',
  'config',
  'builtin',
] as const;
export type ProfileSource = (typeof PROFILE_SOURCES)[number];

export const EFFORTS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

/** Subagent tool tier (SPEC 7.2). */
export const TIERS = ['toolless', 'readonly', 'readwrite'] as const;
export type Tier = (typeof TIERS)[number];

export type Invocation = 'manual' | 'auto';

export const DEFAULT_MAX_TURNS = 25;
export const DEFAULT_TIMEOUT_SECS = 600;
export const MIN_TIMEOUT_SECS = 30;
export const MAX_TIMEOUT_SECS = 3600;

/** The raw `permission:` block, kept with its file so rule lines can be cited (SPEC 6.8). */
export interface ProfilePermission {
  block: { allow?: string[]; ask?: string[]; deny?: string[] };
  /** File the block was read from (or the config file for config profiles). */
  file: string;
  /** That file's full text. */
  text: string;
  /** The block parsed, each rule carrying its `file:line` source. */
  rules: ParsedRules;
}

/** Team fields (SPEC 16): carried through, inert for a standalone profile. */
export interface TeamFields {
  permissionMode?: string;
  reviewer?: boolean;
  subagents?: boolean;
}

export interface Profile {
  name: string;
  source: ProfileSource;
  /** The file it was read from; absent for config and built-in profiles. */
  path?: string;
  description?: string;
  /** The system prompt body. */
  prompt: string;
  /** A `providers` alias or a literal model name (SPEC 4.2). */
  model?: string;
  effort?: Effort;
  temperature?: number;
  /** Cadre tool names (after translation) denied while the profile is active. */
  denyTools: string[];
  /** Cadre tool names; when set, every built-in tool not listed is denied. */
  allowTools?: string[];
  readOnly: boolean;
  tier: Tier;
  maxTurns: number;
  timeoutSecs: number;
  subagentAllow?: string[];
  subagentDeny: string[];
  mcp?: 'all' | string[];
  invocation: Invocation;
  color?: string;
  permission?: ProfilePermission;
  /** Skills force-loaded into the system prompt on activation (SPEC 3.5). */
  skills: string[];
  team: TeamFields;
  /** Per-response output cap (the review built-ins, SPEC 3.4). */
  maxOutputTokens?: number;
  /** Whether the subagent receives the parent facts pack (the review built-ins, SPEC 3.4). */
  parentFacts?: boolean;
  /** Whether a `task` child of this profile gets the project instructions (AGENTS.md, issue 16 B11). */
  instructions?: boolean;
}

export interface LoadWarning {
  /** The file (or `config:agents.<name>`) the warning is about. */
  path: string;
  reason: string;
}

export interface ProfileOrigin {
  source: ProfileSource;
  path?: string;
}

export interface Collision {
  name: string;
  winner: ProfileOrigin;
  losers: ProfileOrigin[];
}
