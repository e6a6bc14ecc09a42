import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { z } from 'zod';
import { suggestRule } from '../permission/suggest.js';
import type { AskAnswer, PermissionAsk, PermissionDecision, PermissionGate } from '../permission/types.js';
import type { AnyTool, SafetyClass, ToolContext, ToolResult } from '../tool/tool.js';
import type { EmitEvent } from './events.js';
import type { StreamedToolCall } from './model-stream.js';

/**
 * Answers an ask: a UI asks its user; a headless run has no user (see headlessAsker). `signal` is the
 * asking agent's: when its run is cancelled the ask is withdrawn (and answered deny).
 */
export type Asker = (ask: PermissionAsk, signal: AbortSignal) => Promise<AskAnswer>;

export interface PermissionDenialRecord {
  agent: string;
  tool: string;
  input: unknown;
  layer: string;
  rule?: string;
  source?: string;
  reason: string;
}

export interface ToolRunnerDeps {
  agent: string;
  tools: ReadonlyMap<string, AnyTool>;
  gate: PermissionGate;
  ask: Asker;
  context: ToolContext;
  emit: EmitEvent;
  /** Called for every denial, for `permission_denials` in JSON output. */
  onDenied?: (record: PermissionDenialRecord) => void;
  /** Called when the user chose "always allow", so the approval can be stored with the session. */
  onApproved?: (rule: string) => void;
}

export interface ToolCallOutcome {
  call: StreamedToolCall;
  result: ToolResult;
  /** The model's input could not be used: unknown tool, unparsable JSON or a schema violation. */
  invalidInput: boolean;
}

/** A headless run: asks are denied with a message telling the model nobody is there (SPEC 6.6). */
export const headlessAsker: Asker = async (ask) => ({
  kind: 'deny_feedback',
  // Reaching the asker despite --yes means --yes declined to apply (a path outside the project).
  feedback: ask.decision.trace.some((entry) => entry.layer === '--yes')
    ? 'no user is present to approve it (headless run; --yes does not approve paths outside the project, only an allow rule does)'
    : 'no user is present to approve it (headless run; pass --yes to approve asks, or add an allow rule)',
});

interface PreparedCall {
  call: StreamedToolCall;
  tool?: AnyTool;
  input?: unknown;
  decision?: PermissionDecision;
  /** A result known before execution: bad input, unknown tool, or a denial. */
  early?: ToolResult;
  invalidInput?: boolean;
}

function describeInputError(tool: string, error: z.ZodError): string {
  return `Invalid input for tool "${tool}":\n${z.prettifyError(error)}\nFix the arguments and call the tool again.`;
}

function denialText(decision: PermissionDecision, extra?: string): string {
  // Reasons may already start with "denied:" and end with a period; say each once.
  const reason = decision.reason.replace(/^denied:\s*/i, '').replace(/\.+$/, '');
  const base = `Permission denied: ${reason}`;
  return extra ? `${base}. The call was denied because ${extra}.` : `${base}.`;
}

async function prepare(call: StreamedToolCall, deps: ToolRunnerDeps): Promise<PreparedCall> {
  const tool = deps.tools.get(call.name);
  if (!tool) {
    const names = [...deps.tools.keys()].join(', ');
    return {
      call,
      early: { output: `Unknown tool "${call.name}". Available tools: ${names}.`, isError: true },
      invalidInput: true,
    };
  }
  if (call.inputError !== undefined) {
    return {
      call,
      tool,
      early: {
        output: `The arguments for "${call.name}" were not valid JSON (${call.inputError}). Send the call again with a JSON object matching the tool's schema.`,
        isError: true,
      },
      invalidInput: true,
    };
  }
  const parsed = tool.schema.safeParse(call.input ?? {});
  if (!parsed.success)
    return {
      call,
      tool,
      early: { output: describeInputError(call.name, parsed.error), isError: true },
      invalidInput: true,
    };
  return authorize(call, tool, parsed.data, deps);
}

/** Decides a validated call (or takes a decision already made) and asks the user when the engine says ask. */
async function authorize(
  call: StreamedToolCall,
  tool: AnyTool,
  input: unknown,
  deps: ToolRunnerDeps,
  decided?: PermissionDecision,
): Promise<PreparedCall> {
  const decision = decided ?? (await decideSafely(deps, call.name, tool, input));
  if (decision.action === 'allow') return { call, tool, input, decision };
  if (decision.action === 'deny') return deny(call, tool, input, decision, deps);
  const ask: PermissionAsk = {
    id: randomUUID(),
    agent: deps.agent,
    callId: call.id,
    tool: call.name,
    input,
    suggestedRule: suggestRule(call.name, tool.subject(input), deps.context.root, homedir()),
    decision,
  };
  deps.emit({ type: 'permission_ask', agent: deps.agent, ask });
  const answer = await deps.ask(ask, deps.context.signal);
  deps.emit({ type: 'permission_answer', agent: deps.agent, askId: ask.id, answer });
  switch (answer.kind) {
    case 'allow_once':
      return { call, tool, input, decision };
    case 'always':
      deps.gate.approve(answer.pattern);
      deps.onApproved?.(answer.pattern);
      return { call, tool, input, decision };
    case 'deny':
      return deny(call, tool, input, decision, deps, 'the user declined it');
    case 'deny_feedback':
      return deny(call, tool, input, decision, deps, answer.feedback);
  }
}

/** A permission check that cannot run (e.g. the shell parser failed to load) denies; it never allows. */
async function decideSafely(
  deps: ToolRunnerDeps,
  name: string,
  tool: AnyTool,
  input: unknown,
): Promise<PermissionDecision> {
  const call = { tool: name, subject: tool.subject(input), safety: tool.safety, agent: deps.agent };
  try {
    return await deps.gate.decide(call);
  } catch (error) {
    const reason = `the permission check failed (${(error as Error).message ?? String(error)}), so the call is denied`;
    return {
      action: 'deny',
      layer: 'error',
      safety: 'destructive',
      reason,
      trace: [{ layer: 'error', note: reason }],
    };
  }
}

function deny(
  call: StreamedToolCall,
  tool: AnyTool,
  input: unknown,
  decision: PermissionDecision,
  deps: ToolRunnerDeps,
  why?: string,
): PreparedCall {
  deps.emit({
    type: 'permission_denied',
    agent: deps.agent,
    callId: call.id,
    tool: call.name,
    input,
    decision,
  });
  deps.onDenied?.({
    agent: deps.agent,
    tool: call.name,
    input,
    layer: decision.layer,
    rule: decision.rule,
    source: decision.source,
    reason: why ? `${decision.reason}; ${why}` : decision.reason,
  });
  return { call, tool, input, decision, early: { output: denialText(decision, why), isError: true } };
}

async function execute(prepared: PreparedCall, deps: ToolRunnerDeps): Promise<ToolResult> {
  const { call, tool } = prepared;
  const started = Date.now();
  deps.emit({
    type: 'tool_call_start',
    agent: deps.agent,
    callId: call.id,
    tool: call.name,
    input: prepared.input ?? call.input,
  });
  let result: ToolResult;
  if (prepared.early || !tool) {
    result = prepared.early ?? { output: 'internal error: no tool', isError: true };
  } else if (deps.context.signal.aborted) {
    // An interrupt during an ask stops the turn: the calls after it do not run.
    result = { output: 'Not run: the run was cancelled.', isError: true };
  } else {
    try {
      const grants = prepared.decision?.grants;
      const gate = deps.gate;
      // webfetch checks the address it connects to against the deny rules (issue 15 point 5).
      const checkAddress = gate.deniedAddress
        ? (address: string) => gate.deniedAddress?.(address)
        : undefined;
      const context = {
        ...deps.context,
        ...(grants ? { grants } : {}),
        ...(checkAddress ? { checkAddress } : {}),
      };
      result = await tool.execute(prepared.input, context);
    } catch (error) {
      result = {
        output: `Tool "${call.name}" failed: ${(error as Error).message ?? String(error)}`,
        isError: true,
      };
    }
  }
  deps.emit({
    type: 'tool_call_end',
    agent: deps.agent,
    callId: call.id,
    tool: call.name,
    output: result.output,
    isError: result.isError === true,
    durationMs: Date.now() - started,
  });
  return result;
}

function classOf(prepared: PreparedCall): SafetyClass {
  return prepared.early ? 'read' : (prepared.decision?.safety ?? prepared.tool?.safety ?? 'write');
}

/**
 * Runs one model turn's tool calls: permissions decided in call order (asks one at a time), then runs of
 * consecutive read-class calls execute in parallel and write-class calls one by one. Results in call order.
 */
const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * A call decided before an earlier write of the same turn ran is decided again just before it runs: the
 * write may have changed what its path means (a symlink made by bash). Only a stricter outcome counts;
 * an approval the user already gave for the same ask stands.
 */
async function recheck(prepared: PreparedCall, deps: ToolRunnerDeps): Promise<PreparedCall> {
  const { call, tool, input, decision } = prepared;
  if (prepared.early || !tool || !decision) return prepared;
  const fresh = await decideSafely(deps, call.name, tool, input);
  return STRICTNESS[fresh.action] > STRICTNESS[decision.action]
    ? authorize(call, tool, input, deps, fresh)
    : prepared;
}

export async function runToolCalls(
  calls: StreamedToolCall[],
  deps: ToolRunnerDeps,
): Promise<ToolCallOutcome[]> {
  const prepared: PreparedCall[] = [];
  for (const call of calls) prepared.push(await prepare(call, deps));
  const results: ToolResult[] = new Array(prepared.length);
  let wrote = false;
  let i = 0;
  while (i < prepared.length) {
    if (classOf(prepared[i]) === 'read') {
      let j = i;
      while (j < prepared.length && classOf(prepared[j]) === 'read') j++;
      // A read after a write of the same turn is decided again: the write may have moved what it names.
      if (wrote) for (let k = i; k < j; k++) prepared[k] = await recheck(prepared[k], deps);
      const batch = await Promise.all(prepared.slice(i, j).map((p) => execute(p, deps)));
      batch.forEach((r, k) => {
        results[i + k] = r;
      });
      i = j;
    } else {
      if (wrote) prepared[i] = await recheck(prepared[i], deps);
      results[i] = await execute(prepared[i], deps);
      wrote ||= prepared[i].early === undefined;
      i++;
    }
  }
  return prepared.map((p, k) => ({
    call: p.call,
    result: results[k],
    invalidInput: p.invalidInput === true,
  }));
}
