import { z } from 'zod';
import { describeSchemaIssue, parseJsonc } from '../../util/json-errors.js';
import { MAX_TEXT_FILE_BYTES, readRegularTextFile } from '../../util/read-text.js';

/** A scripted-model script the user must fix; carries the file and the JSON path that failed. */
export class ScriptError extends Error {
  override name = 'ScriptError';
  constructor(
    message: string,
    readonly file: string,
    readonly jsonPath?: string,
  ) {
    super(message);
  }
}

const nonNegativeInt = z.number().int().min(0);
const positiveInt = z.number().int().min(1);

export const ScriptToolCallSchema = z
  .object({
    name: z.string().min(1),
    /** Serialised with JSON.stringify and streamed as the call's arguments. */
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** Sent verbatim instead of `arguments`, to script a model that emits malformed JSON. */
    raw_arguments: z.string().optional(),
  })
  .strict()
  .refine((call) => call.arguments === undefined || call.raw_arguments === undefined, {
    message: 'give "arguments" or "raw_arguments", not both',
  });
export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;

export const ScriptErrorReplySchema = z
  .object({
    status: z.number().int().min(400).max(599),
    message: z.string(),
    /** Provider error type (e.g. "rate_limit_error"); derived from the status when absent. */
    type: z.string().min(1).optional(),
    /** Seconds, sent as the `retry-after` header; fractions allowed. */
    retry_after: z.number().min(0).optional(),
    /** Attempts that fail before the turn answers normally; absent = every attempt fails. */
    times: positiveInt.optional(),
  })
  .strict();
export type ScriptErrorReply = z.infer<typeof ScriptErrorReplySchema>;

export const ScriptResetSchema = z.union([
  z.literal(true),
  z
    .object({
      /** Attempts cut off (after the scripted errors, if any) before the turn answers normally; absent = all. */
      times: positiveInt.optional(),
    })
    .strict(),
]);
export type ScriptReset = z.infer<typeof ScriptResetSchema>;

/** A failure that applies to some deliveries: `true` (all) or `{ times }` (the first `times`). */
const ScriptFailureSchema = z.union([z.literal(true), z.object({ times: positiveInt.optional() }).strict()]);

export const ScriptUsageSchema = z
  .object({ input_tokens: nonNegativeInt, output_tokens: nonNegativeInt })
  .strict();
export type ScriptUsage = z.infer<typeof ScriptUsageSchema>;

export const ScriptTurnSchema = z
  .object({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    tool_calls: z.array(ScriptToolCallSchema).optional(),
    /** Waited before any answer (normal, error or reset); it is model time. */
    delay_ms: nonNegativeInt.optional(),
    error: ScriptErrorReplySchema.optional(),
    reset: ScriptResetSchema.optional(),
    /** The reply stops part-way but the connection closes cleanly: no final event, no error. */
    truncate: ScriptFailureSchema.optional(),
    /** The reply carries a line that is not JSON where the wire needs JSON. */
    malformed: ScriptFailureSchema.optional(),
    /** The reply starts, then the stream carries the wire's error event instead of its end. */
    stream_error: z
      .object({ type: z.string().min(1).optional(), message: z.string(), times: positiveInt.optional() })
      .strict()
      .optional(),
    usage: ScriptUsageSchema.optional(),
  })
  .strict()
  .refine((turn) => Object.keys(turn).some((key) => key !== 'usage'), {
    message:
      'a turn needs at least one of text, reasoning, tool_calls, delay_ms, error, reset, truncate, malformed, stream_error',
  });
export type ScriptTurn = z.infer<typeof ScriptTurnSchema>;

export const ScriptMatchSchema = z
  .object({
    /** Substring of the system prompt. */
    system: z.string().optional(),
    /** Substring of the first user message of the conversation. */
    first_user: z.string().optional(),
    /** Substring of the latest user message (lets a continued session get its own rule). */
    last_user: z.string().optional(),
    /** Substring of any message: system, user, assistant or tool result. */
    any: z.string().optional(),
    /** Substring of the requested model name. */
    model: z.string().optional(),
  })
  .strict();
export type ScriptMatch = z.infer<typeof ScriptMatchSchema>;

export const ScriptRuleSchema = z
  .object({
    /** Shown in recorded requests and in the "no scripted turn" message. */
    name: z.string().min(1).optional(),
    match: ScriptMatchSchema.optional(),
    turns: z.array(ScriptTurnSchema),
  })
  .strict();
export type ScriptRule = z.infer<typeof ScriptRuleSchema>;

export const ScriptSchema = z.union([
  z.object({ $schema: z.string().optional(), rules: z.array(ScriptRuleSchema) }).strict(),
  z.array(ScriptRuleSchema).transform((rules) => ({ rules })),
]);
/** The normalised script: always the object form. */
export interface Script {
  rules: ScriptRule[];
}

/**
 * The issue to report: for a union (object vs bare array) zod reports both branches, so pick the
 * branch matching the shape the user wrote and descend into its deepest issue.
 */
function primaryIssue(issues: readonly z.core.$ZodIssue[], value: unknown): z.core.$ZodIssue {
  const first = issues[0];
  if (first.code !== 'invalid_union' || first.errors.length === 0) return first;
  const branch = Array.isArray(value) ? first.errors[1] : first.errors[0];
  const inner = branch?.[0];
  if (!inner) return first;
  return { ...inner, path: [...first.path, ...inner.path] };
}

/** Validates an already-parsed script; `source` names it in errors, `text` (if known) gives line numbers. */
export function parseScript(value: unknown, source = '<script>', text?: string): Script {
  const result = ScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const { message, jsonPath } = describeSchemaIssue(
    primaryIssue(result.error.issues, value),
    source,
    'script',
    text,
  );
  throw new ScriptError(message, source, jsonPath);
}

/** Parses script text (JSON; comments and trailing commas tolerated). */
export function parseScriptText(text: string, source = '<script>'): Script {
  const parsed = parseJsonc(text, source, 'script');
  if (!parsed.ok) throw new ScriptError(parsed.message, source);
  return parseScript(parsed.value, source, text);
}

/** Reads and validates a script file; every failure is a ScriptError naming the file. */
export function loadScript(file: string): Script {
  // Scripts are test data and may be large; the cap only keeps a device or runaway file out.
  const read = readRegularTextFile(file, 64 * MAX_TEXT_FILE_BYTES);
  if (!read.ok) throw new ScriptError(`${file}: cannot read script (${read.reason})`, file);
  return parseScriptText(read.text, file);
}
