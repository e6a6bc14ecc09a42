import { CLAUDE_CODE_TEAM_TOOLS, translateToolName } from '../tool/names.js';

export type ToolListResult =
  | {
      ok: true;
      tools: string[];
      /** Names that mean nothing to cadre. */
      dropped: string[];
      /** Known names of tools cadre cannot give here (Claude Code's team tools). */
      unavailable: string[];
    }
  | { ok: false; reason: string };

/** A list given as YAML/JSON list or as one comma-separated string (the Claude Code form). */
export function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((s) => s.trim());
  return undefined;
}

/**
 * Translates a tool list to cadre names: cadre built-ins and `mcp__` names pass through, Claude Code,
 * Reasonix and bnerd names map through the one table (src/tool/names.ts), anything else is dropped
 * (reported, never guessed at).
 */
export function translateToolList(value: unknown, key: string): ToolListResult {
  const names = stringList(value);
  if (!names) return { ok: false, reason: `"${key}" must be a list of tool names` };
  const tools: string[] = [];
  const dropped: string[] = [];
  const unavailable: string[] = [];
  for (const name of names) {
    if (CLAUDE_CODE_TEAM_TOOLS.includes(name)) {
      unavailable.push(name);
      continue;
    }
    const mapped = translateToolName(name)?.tools;
    if (!mapped) {
      dropped.push(name);
      continue;
    }
    for (const tool of mapped) if (!tools.includes(tool)) tools.push(tool);
  }
  return { ok: true, tools, dropped, unavailable };
}
