import { createHash } from 'node:crypto';

export const MCP_TOOL_PREFIX = 'mcp__';

/** The longest tool name the model APIs accept (OpenAI and Anthropic both cap at 64). */
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/** Model APIs accept only `[A-Za-z0-9_-]` in tool names; anything else becomes `_`. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * `mcp__<server>__<tool>`, sanitized and at most 64 characters. An over-long name is cut and given a hash
 * of the original pair so two long names that share a prefix stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const keep = MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1;
  return `${name.slice(0, keep)}_${shortHash(`${server}\u0000${tool}`)}`;
}

/** A variant of `name` not in `taken`, for two remote tools that sanitize to the same name. */
export function disambiguate(name: string, original: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const suffix = `_${shortHash(original)}`;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * The name part each configured server gets: sanitized, and made distinct when two server names sanitize
 * alike (`my.fs` and `my_fs`), so tool names never depend on which server happened to connect first.
 */
export function serverNameParts(servers: readonly string[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const server of servers) {
    const part = sanitizeNamePart(server);
    counts.set(part, (counts.get(part) ?? 0) + 1);
  }
  const parts = new Map<string, string>();
  for (const server of servers) {
    const part = sanitizeNamePart(server);
    parts.set(server, (counts.get(part) ?? 0) > 1 ? `${part}_${shortHash(server)}` : part);
  }
  return parts;
}
