import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { BUILTIN_TOOL_NAMES, WRITER_TOOLS } from '../tool/names.js';
import { lineOf } from '../util/json-errors.js';
import { isImportedSource } from './model-routing.js';
import { readPermissionBlock } from './permission-block.js';
import { PROFILE_KEYS, profileFieldProblem } from './schema.js';
import { stringList, translateToolList } from './tool-lists.js';
import {
  DEFAULT_MAX_TURNS,
  DEFAULT_TIMEOUT_SECS,
  type Effort,
  MAX_TIMEOUT_SECS,
  MIN_TIMEOUT_SECS,
  type Profile,
  type ProfileSource,
  TIERS,
  type Tier,
} from './types.js';

/** Keys that spell the same setting; giving two of a group is ambiguous, so refused. */
const ALIAS_GROUPS: readonly (readonly string[])[] = [
  ['reasoning', 'effort'],
  ['allow_tools', 'allowed-tools', 'tools'],
  ['subagent_max_turns', 'max-steps'],
];

const BUILTIN: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

export interface ProfileDraft {
  name: string;
  source: ProfileSource;
  path?: string;
  fields: Record<string, unknown>;
  body: string;
  /** Where `permission:` rules are cited from. */
  citation: { file: string; text: string };
  /** Keys this source accepts beyond the profile table (e.g. a skill's `applies_to`). */
  extraKeys?: readonly string[];
}

/** A profile, or the one reason the draft cannot become one. `notes` are non-fatal problems. */
export type BuildResult = { ok: true; profile: Profile; notes: string[] } | { ok: false; reason: string };

class Rejection extends Error {}

function reject(reason: string): never {
  throw new Rejection(reason);
}

// The readers below take fields the schema (./schema.ts) has validated: they only convert.

function optionalString(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function optionalBoolean(fields: Record<string, unknown>, key: string): boolean | undefined {
  const value = fields[key];
  return typeof value === 'boolean' ? value : undefined;
}

function firstOf(fields: Record<string, unknown>, keys: readonly string[]): [string, unknown] | undefined {
  for (const key of keys) if (fields[key] !== undefined && fields[key] !== null) return [key, fields[key]];
  return undefined;
}

function toolList(value: unknown, key: string, notes: string[]): string[] {
  const result = translateToolList(value, key);
  if (!result.ok) reject(result.reason);
  if (result.dropped.length > 0)
    notes.push(`unknown tool name(s) in "${key}" dropped: ${result.dropped.join(', ')}`);
  if (result.unavailable.length > 0)
    notes.push(`team tool(s) in "${key}" not available outside a team run: ${result.unavailable.join(', ')}`);
  return result.tools;
}

function readEffort(fields: Record<string, unknown>): Effort | undefined {
  return firstOf(fields, ['effort', 'reasoning'])?.[1] as Effort | undefined;
}

function readMaxTurns(fields: Record<string, unknown>): number {
  return (
    (firstOf(fields, ['subagent_max_turns', 'max-steps'])?.[1] as number | undefined) ?? DEFAULT_MAX_TURNS
  );
}

function readTimeout(fields: Record<string, unknown>, notes: string[]): number {
  const value = fields.subagent_timeout_secs;
  if (typeof value !== 'number') return DEFAULT_TIMEOUT_SECS;
  const clamped = Math.min(MAX_TIMEOUT_SECS, Math.max(MIN_TIMEOUT_SECS, Math.round(value)));
  if (clamped !== value) {
    notes.push(
      `subagent_timeout_secs ${value} clamped to ${clamped} (allowed ${MIN_TIMEOUT_SECS}..${MAX_TIMEOUT_SECS})`,
    );
  }
  return clamped;
}

/** Sources whose authors expect a tool-using subagent when they give no tier (Claude Code, Reasonix, bnerd). */
const TOOLED_BY_DEFAULT: ReadonlySet<ProfileSource> = new Set([
  'claude',
  'mission',
  'project-skill',
  'global-skill',
]);

/**
 * The subagent tier (SPEC 3.2), first match wins: `read-only` forces readonly; `subagent_tools` when set
 * (unknown values fall back to toolless: a typo must never grant tools, SPEC 3.3); an allow list implies
 * readwrite when it names a writer or shell tool, else readonly; an imported file or a `runAs: subagent`
 * skill is readwrite; anything else is toolless.
 */
function readTier(
  fields: Record<string, unknown>,
  source: ProfileSource,
  readOnly: boolean,
  allowTools: readonly string[] | undefined,
  notes: string[],
): Tier {
  const value = fields.subagent_tools;
  if (readOnly) return 'readonly';
  if (value !== undefined && value !== null) {
    if (typeof value === 'string' && (TIERS as readonly string[]).includes(value)) return value as Tier;
    notes.push(`unknown subagent_tools ${JSON.stringify(value)}: treated as toolless`);
    return 'toolless';
  }
  if (allowTools !== undefined) return allowTools.some(isWriterTool) ? 'readwrite' : 'readonly';
  return TOOLED_BY_DEFAULT.has(source) ? 'readwrite' : 'toolless';
}

function isWriterTool(name: string): boolean {
  return (WRITER_TOOLS as readonly string[]).includes(name);
}

function readMcp(fields: Record<string, unknown>, tier: Tier, notes: string[]): 'all' | string[] | undefined {
  const value = fields.subagent_mcp;
  if (value === undefined || value === null) return undefined;
  let grant: 'all' | string[];
  if (value === 'all') grant = 'all';
  else {
    const names = stringList(value) ?? [];
    const builtins = names.filter((n) => BUILTIN.has(n));
    if (builtins.length > 0)
      notes.push(`subagent_mcp cannot grant built-in tools: ${builtins.join(', ')} ignored`);
    grant = names.filter((n) => !BUILTIN.has(n));
  }
  if (tier === 'toolless') {
    notes.push('subagent_mcp ignored: it needs a readonly or readwrite subagent_tools tier');
    return undefined;
  }
  return grant;
}

/** MCP tools an allow list names (Claude Code's `tools: mcp__server__tool`) are granted like `subagent_mcp`. */
function listedMcpTools(allowTools: readonly string[] | undefined, tier: Tier): string[] | undefined {
  const listed = allowTools?.filter((name) => name.startsWith('mcp__')) ?? [];
  return listed.length > 0 && tier !== 'toolless' ? listed : undefined;
}

function readSkills(fields: Record<string, unknown>): string[] {
  return (stringList(fields.skills) ?? []).filter((n) => n !== '');
}

function checkKeys(draft: ProfileDraft, notes: string[]): void {
  const known = new Set([...PROFILE_KEYS, ...(draft.extraKeys ?? [])]);
  const unknown = Object.keys(draft.fields).filter((k) => !known.has(k));
  if (unknown.length > 0) notes.push(`unknown key(s) ignored: ${unknown.join(', ')}`);
  for (const group of ALIAS_GROUPS) {
    const given = group.filter((k) => draft.fields[k] !== undefined && draft.fields[k] !== null);
    if (given.length > 1) reject(`conflicting keys ${given.join(' and ')}: give only one`);
  }
  const problem = profileFieldProblem(draft.fields);
  if (problem) {
    const line = keyLine(draft, problem.key);
    reject(line === undefined ? problem.message : `${problem.message} (line ${line})`);
  }
}

/**
 * The line of `key` in the file the draft was read from: a frontmatter line `key:`, or the key inside the
 * profile's entry of a config file; undefined when it cannot be placed.
 */
function keyLine(draft: ProfileDraft, key: string): number | undefined {
  const { text } = draft.citation;
  if (text === '') return undefined;
  if (draft.source === 'config') {
    const tree = parseTree(text);
    const node = tree && findNodeAtLocation(tree, ['agents', draft.name, key]);
    return node ? lineOf(text, node.offset) : undefined;
  }
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^[ \\t]*["']?${escaped}["']?[ \\t]*:`, 'm').exec(text);
  return match ? lineOf(text, match.index) : undefined;
}

function assemble(draft: ProfileDraft, notes: string[]): Profile {
  const { fields } = draft;
  checkKeys(draft, notes);
  const readOnly = optionalBoolean(fields, 'read-only') ?? false;
  const denyTools = [
    ...(fields.deny_tools != null ? toolList(fields.deny_tools, 'deny_tools', notes) : []),
    ...(fields.disallowedTools != null ? toolList(fields.disallowedTools, 'disallowedTools', notes) : []),
  ];
  const allowEntry = firstOf(fields, ['allow_tools', 'allowed-tools', 'tools']);
  let allowTools = allowEntry ? toolList(allowEntry[1], allowEntry[0], notes) : undefined;
  const tier = readTier(fields, draft.source, readOnly, allowTools, notes);
  if (readOnly) {
    denyTools.push(...WRITER_TOOLS);
    allowTools = allowTools?.filter((t) => !isWriterTool(t));
  }
  let model = optionalString(fields, 'model');
  // Claude Code spells "use the parent's model" as `model: inherit`.
  if (isImportedSource(draft.source) && model === 'inherit') model = undefined;
  const permission =
    fields.permission === undefined
      ? { ok: true as const }
      : readPermissionBlock(fields.permission, draft.citation.file, draft.citation.text);
  if (!permission.ok) reject(permission.reason);
  const subagentAllow =
    fields.subagent_allow != null ? toolList(fields.subagent_allow, 'subagent_allow', notes) : undefined;
  const subagentDeny =
    fields.subagent_deny != null ? toolList(fields.subagent_deny, 'subagent_deny', notes) : [];
  return {
    name: draft.name,
    source: draft.source,
    path: draft.path,
    description: optionalString(fields, 'description'),
    prompt: draft.body,
    model,
    effort: readEffort(fields),
    temperature: typeof fields.temperature === 'number' ? fields.temperature : undefined,
    denyTools: [...new Set(denyTools)],
    allowTools,
    readOnly,
    tier,
    maxTurns: readMaxTurns(fields),
    timeoutSecs: readTimeout(fields, notes),
    subagentAllow,
    subagentDeny,
    mcp: readMcp(fields, tier, notes) ?? listedMcpTools(allowTools, tier),
    invocation: fields.invocation === 'auto' ? 'auto' : 'manual',
    color: optionalString(fields, 'color'),
    permission: permission.permission,
    skills: readSkills(fields),
    instructions: optionalBoolean(fields, 'instructions'),
    team: {
      permissionMode: optionalString(fields, 'permissionMode'),
      reviewer: optionalBoolean(fields, 'reviewer'),
      subagents: optionalBoolean(fields, 'subagents'),
    },
  };
}

/** Turns parsed frontmatter (or a config entry) into a validated profile. Never throws for bad input. */
export function buildProfile(draft: ProfileDraft): BuildResult {
  const notes: string[] = [];
  try {
    return { ok: true, profile: assemble(draft, notes), notes };
  } catch (err) {
    if (err instanceof Rejection) return { ok: false, reason: err.message };
    throw err;
  }
}
