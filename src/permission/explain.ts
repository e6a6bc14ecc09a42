import { PATH_TOOLS, READER_TOOLS, SESSION_TOOLS } from '../tool/names.js';
import type { PermissionSubject, SafetyClass } from '../tool/tool.js';
import type { PermissionCall, PermissionDecision, TraceEntry } from './types.js';

/** `cadre permissions explain` text (SPEC 6.8): the first line is exactly `decision: allow|ask|deny`. */
export function formatExplain(decision: PermissionDecision): string {
  const lines = [`decision: ${decision.action}`];
  lines.push(`layer: ${decision.layer}`);
  if (decision.rule) lines.push(`rule: ${decision.rule}`);
  if (decision.source) lines.push(`source: ${decision.source}`);
  lines.push(`class: ${decision.safety}`);
  lines.push(`reason: ${decision.reason}`);
  lines.push('trace:');
  for (const entry of decision.trace) lines.push(`  ${formatTraceEntry(entry)}`);
  return lines.join('\n');
}

function formatTraceEntry(entry: TraceEntry): string {
  const parts = [`[${entry.layer}]`];
  if (entry.action) parts.push(entry.action);
  if (entry.rule) parts.push(entry.rule);
  if (entry.source) parts.push(`(${entry.source})`);
  parts.push(`- ${entry.note}`);
  return parts.join(' ');
}

export interface ExplainJson {
  decision: PermissionDecision['action'];
  layer: string;
  rule: string | null;
  source: string | null;
  safety: SafetyClass;
  reason: string;
  trace: TraceEntry[];
}

/** `--json` form: `{decision, layer, rule, source, trace:[…]}` (plus class and reason). */
export function explainJson(decision: PermissionDecision): ExplainJson {
  return {
    decision: decision.action,
    layer: decision.layer,
    rule: decision.rule ?? null,
    source: decision.source ?? null,
    safety: decision.safety,
    reason: decision.reason,
    trace: decision.trace,
  };
}

/** Built-in tools declared read (SPEC 5); anything else — MCP or unknown — is judged as write. */
const READ_CLASS_TOOLS: ReadonlySet<string> = new Set([...READER_TOOLS, 'bash_output', ...SESSION_TOOLS]);

/** A call on the command line that cannot be read: the CLI reports it as bad usage (exit 2). */
export class CallSpecError extends Error {
  override name = 'CallSpecError';
}

/** Parses `tool(input)` from the command line: `bash(git push origin main)` → `{tool: 'bash', input}`. */
export function parseCallSpec(spec: string): { tool: string; input: Record<string, string> } {
  const trimmed = spec.trim();
  const open = trimmed.indexOf('(');
  if (open === -1) {
    if (!/^[A-Za-z0-9_*.-]+$/.test(trimmed))
      throw new CallSpecError(`cannot read the call "${spec}": expected tool or tool(input)`);
    return { tool: trimmed, input: {} };
  }
  if (!trimmed.endsWith(')'))
    throw new CallSpecError(`cannot read the call "${spec}": missing ")" at the end`);
  const tool = trimmed.slice(0, open).trim();
  if (tool === '') throw new CallSpecError(`cannot read the call "${spec}": no tool name before "("`);
  const argument = trimmed.slice(open + 1, -1);
  if (tool === 'bash') return { tool, input: { command: argument } };
  if (PATH_TOOLS.has(tool)) return { tool, input: { path: argument } };
  if (tool === 'webfetch') return { tool, input: { url: argument } };
  if (tool === 'task') return { tool, input: { agent: argument } };
  if (tool === 'skill') return { tool, input: { name: argument } };
  return { tool, input: {} };
}

/**
 * A PermissionCall for a parsed spec, for `explain` without a tool registry: the subject kind follows
 * the tool, the class is the built-in declaration (MCP and unknown tools: write, SPEC 6.2).
 */
export function callFromSpec(spec: string, agent = 'main'): PermissionCall {
  const { tool, input } = parseCallSpec(spec);
  let subject: PermissionSubject = { kind: 'none' };
  if (input.command !== undefined) subject = { kind: 'bash', command: input.command };
  else if (input.path !== undefined) subject = { kind: 'path', paths: [input.path] };
  else if (input.url !== undefined) subject = { kind: 'url', url: input.url };
  else if (input.agent !== undefined) subject = { kind: 'name', value: input.agent };
  else if (input.name !== undefined) subject = { kind: 'name', value: input.name };
  const safety: SafetyClass = READ_CLASS_TOOLS.has(tool) ? 'read' : 'write';
  return { tool, subject, safety, agent };
}
