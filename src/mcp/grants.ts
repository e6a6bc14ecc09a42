import picomatch from 'picomatch';
import { BUILTIN_TOOL_NAMES } from '../tool/names.js';
import type { AnyTool } from '../tool/tool.js';
import { MCP_TOOL_PREFIX } from './names.js';
import { isMcpTool } from './tool.js';

/** A profile's `subagent_mcp`: `all`, a list of tool names, or absent. */
export type McpGrant = 'all' | readonly string[] | undefined;

/** SPEC 7.2 tiers; only tooled tiers can hold MCP tools. */
export type SubagentTier = 'toolless' | 'readonly' | 'readwrite';

export interface McpGrantResult {
  tools: AnyTool[];
  /** Problems to show at spawn: unknown names, a grant on a toolless tier. Unprefixed; the caller names the profile. */
  warnings: string[];
}

/** The tool's name on its server: from its origin, else from the part after `mcp__<server>__`. */
function bareName(tool: AnyTool): string {
  if (isMcpTool(tool)) return tool.mcp.tool;
  const rest = tool.name.slice(MCP_TOOL_PREFIX.length);
  const split = rest.indexOf('__');
  return split === -1 ? rest : rest.slice(split + 2);
}

const builtinNames: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

function matcherFor(requested: string): (tool: AnyTool) => boolean {
  if (requested.includes('*')) {
    // Same shape as permission rules (`mcp__fs__*`): `*` matches any run of characters.
    const matches = picomatch(requested, { dot: true });
    return (tool) => matches(tool.name) || matches(bareName(tool));
  }
  return (tool) => tool.name === requested || bareName(tool) === requested;
}

/**
 * The MCP tools a subagent gets (SPEC 7.5). Only tools named `mcp__…` are ever returned, so no grant can
 * reach a built-in tool. A list entry may be the full name, the server's bare tool name (granting every
 * server's tool of that name) or a `*` pattern; a built-in tool's name is refused with a warning.
 */
export function grantMcpTools(
  grant: McpGrant,
  tier: SubagentTier,
  liveTools: readonly AnyTool[],
): McpGrantResult {
  if (grant === undefined || (grant !== 'all' && grant.length === 0)) return { tools: [], warnings: [] };
  if (tier === 'toolless') {
    return {
      tools: [],
      warnings: [
        'subagent_mcp is ignored: MCP tools need a readonly or readwrite tier, and this profile is toolless',
      ],
    };
  }
  const mcpTools = liveTools.filter((tool) => tool.name.startsWith(MCP_TOOL_PREFIX));
  if (grant === 'all') return { tools: [...mcpTools], warnings: [] };

  const granted = new Set<AnyTool>();
  const warnings: string[] = [];
  for (const requested of new Set(grant)) {
    // A built-in's name always means the built-in, never a same-named server tool: refuse it outright.
    if (builtinNames.has(requested)) {
      warnings.push(`subagent_mcp cannot grant the built-in tool "${requested}"; ignored`);
      continue;
    }
    const found = mcpTools.filter(matcherFor(requested));
    for (const tool of found) granted.add(tool);
    if (found.length === 0) {
      warnings.push(`subagent_mcp names "${requested}", which no connected MCP server offers; ignored`);
    }
  }
  return { tools: mcpTools.filter((tool) => granted.has(tool)), warnings };
}
