import type { ToolResult } from '../tool/tool.js';

/** The parts of an MCP `tools/call` result cadre reads; everything else is ignored. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Pre-2024-11 servers answer with `toolResult` instead of `content`. */
  toolResult?: unknown;
}

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Size of base64 data once decoded, so the model learns how big the thing it cannot see is. */
function decodedBytes(base64: unknown): number {
  if (typeof base64 !== 'string') return 0;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function describeResource(resource: unknown): string {
  if (!isFields(resource)) return '[resource]';
  const uri = text(resource.uri) ?? 'unknown uri';
  const body = text(resource.text);
  if (body !== undefined) return `[resource ${uri}]\n${body}`;
  const mime = text(resource.mimeType) ?? 'binary';
  return `[resource ${uri}: ${mime}, ${decodedBytes(resource.blob)} bytes]`;
}

/** One content block as text: text as is, anything else described in brackets. */
export function describeContentBlock(block: unknown): string {
  if (!isFields(block)) return '[unreadable content]';
  switch (block.type) {
    case 'text':
      return text(block.text) ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${text(block.mimeType) ?? 'unknown type'}, ${decodedBytes(block.data)} bytes]`;
    case 'resource_link': {
      const uri = text(block.uri) ?? 'unknown uri';
      const name = text(block.name);
      return name === undefined ? `[resource link ${uri}]` : `[resource link ${name}: ${uri}]`;
    }
    case 'resource':
      return describeResource(block.resource);
    default:
      return `[${String(block.type)} content]`;
  }
}

/** An MCP call result as a cadre tool result: text blocks joined, other blocks described, isError kept. */
export function toToolResult(result: McpCallResult): ToolResult {
  const isError = result.isError === true;
  const blocks = Array.isArray(result.content) ? result.content : [];
  let output = blocks.map(describeContentBlock).join('\n');
  if (output === '' && result.structuredContent !== undefined) {
    output = JSON.stringify(result.structuredContent, null, 2);
  }
  if (output === '' && result.toolResult !== undefined) {
    output = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  }
  if (output === '') output = isError ? '(the tool failed without a message)' : '(no output)';
  return isError ? { output, isError } : { output };
}
