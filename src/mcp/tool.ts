import { z } from 'zod';
import type { AnyTool, SafetyClass, Tool, ToolResult } from '../tool/tool.js';

/** A tool as its server lists it (the fields of MCP `tools/list` that cadre uses). */
export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

export interface McpToolOrigin {
  server: string;
  /** The tool's name on its server, before prefixing and sanitizing. */
  tool: string;
}

export type McpToolInput = Record<string, unknown>;

/** A cadre tool backed by an MCP server; `mcp` says where it came from. */
export type McpTool = Tool<McpToolInput> & { mcp: McpToolOrigin };

export type CallRemoteTool = (tool: string, args: McpToolInput, signal: AbortSignal) => Promise<ToolResult>;

/** SPEC 6.2: `readOnlyHint` → read, `destructiveHint` → destructive, no hint → write. */
export function safetyFromAnnotations(annotations: RemoteTool['annotations']): SafetyClass {
  if (annotations?.readOnlyHint === true) return 'read';
  if (annotations?.destructiveHint === true) return 'destructive';
  return 'write';
}

/** The server validates arguments against its own schema; cadre only insists on an object. */
const permissiveInput = z.record(z.string(), z.unknown()).default({});

export function createMcpTool(
  server: string,
  remote: RemoteTool,
  name: string,
  call: CallRemoteTool,
): McpTool {
  const description =
    remote.description !== undefined && remote.description.trim() !== ''
      ? remote.description
      : `Tool "${remote.name}" from MCP server "${server}".`;
  return {
    name,
    description,
    schema: permissiveInput,
    inputJsonSchema: { type: 'object', ...remote.inputSchema },
    safety: safetyFromAnnotations(remote.annotations),
    subject: () => ({ kind: 'none' }),
    execute: (input, ctx) => call(remote.name, input, ctx.signal),
    mcp: { server, tool: remote.name },
  };
}

export function isMcpTool(tool: AnyTool): tool is McpTool {
  const origin: unknown = (tool as Partial<McpTool>).mcp;
  return typeof origin === 'object' && origin !== null && 'server' in origin && 'tool' in origin;
}
