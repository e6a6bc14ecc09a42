import type { CallWarning, LanguageModel, ModelMessage } from 'ai';
import { providerOptionsFor } from '../provider/model.js';
import type { TokenUsage } from '../provider/pricing.js';
import type { ModelParams, ModelRoute } from '../provider/route.js';

/** A tool as the model sees it: name, description, JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
}

export interface StreamedToolCall {
  id: string;
  name: string;
  input: unknown;
  /** Set when the model's arguments were not valid JSON: the parse problem. */
  inputError?: string;
}

/** The model's side of one turn, normalised across providers. Errors arrive inside the stream. */
export type ModelStreamPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: StreamedToolCall }
  | { type: 'finish'; usage: TokenUsage; finishReason: string; assistant: ModelMessage[] }
  /** Something the provider wants the user to know (an unsupported setting, a compatibility mode). */
  | { type: 'warning'; message: string }
  | { type: 'error'; error: unknown };

/** The seam between the loop and a model: tests may pass any function with this shape. */
export type ModelCaller = (request: ModelRequest) => AsyncIterable<ModelStreamPart>;

function tokenUsage(usage: {
  inputTokens?: number;
  outputTokens?: number;
  inputTokenDetails?: { cacheReadTokens?: number };
  outputTokenDetails?: { reasoningTokens?: number };
}): TokenUsage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
  };
}

/**
 * The SDK marks a call to a tool it was not offered as invalid too; that is not bad input, so the call is
 * kept with its parsed arguments and the permission gate or tool runner explains why it cannot run.
 */
function toolCallInput(
  input: unknown,
  invalid: boolean,
  error: unknown,
): Pick<StreamedToolCall, 'input' | 'inputError'> {
  if (!invalid) return { input };
  // Matched by name: importing the class would load the whole `ai` package at start-up.
  if ((error as { name?: string } | undefined)?.name === 'AI_NoSuchToolError') {
    if (typeof input !== 'string') return { input };
    try {
      return { input: JSON.parse(input) };
    } catch (parseError) {
      return { input, inputError: describeParseError(parseError) };
    }
  }
  return { input, inputError: describeParseError(error) };
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 400);
}

function describeWarning(warning: CallWarning, route: ModelRoute): string {
  const where = `${route.alias ?? route.type} (${route.model})`;
  switch (warning.type) {
    case 'unsupported':
      return `${where}: "${warning.feature}" is not supported${warning.details ? `. ${warning.details}` : ''}`;
    case 'compatibility':
      return `${where}: "${warning.feature}" runs in a compatibility mode${warning.details ? `. ${warning.details}` : ''}`;
    case 'other':
      return `${where}: ${warning.message}`;
  }
}

/** A ModelCaller backed by the `ai` SDK's streamText, with the SDK's own retries off (the loop retries). */
export function sdkModelCaller(model: LanguageModel, route: ModelRoute, params: ModelParams): ModelCaller {
  // The SDK would log warnings with console.info/warn, i.e. onto stdout; they arrive as stream parts instead.
  globalThis.AI_SDK_LOG_WARNINGS = false;
  return async function* callModel(request) {
    const { streamText, jsonSchema } = await import('ai');
    const tools = Object.fromEntries(
      request.tools.map((t) => [
        t.name,
        { description: t.description, inputSchema: jsonSchema(t.inputSchema) },
      ]),
    );
    const result = streamText({
      model,
      system: request.system,
      messages: request.messages,
      tools,
      maxRetries: 0,
      abortSignal: request.signal,
      temperature: params.temperature,
      providerOptions: providerOptionsFor(route, params),
    });
    try {
      let failed = false;
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'start-step':
            for (const warning of part.warnings)
              yield { type: 'warning', message: describeWarning(warning, route) };
            break;
          case 'text-delta':
            yield { type: 'text', text: part.text };
            break;
          case 'reasoning-delta':
            yield { type: 'reasoning', text: part.text };
            break;
          case 'tool-call':
            yield {
              type: 'tool_call',
              call: {
                id: part.toolCallId,
                name: part.toolName,
                ...toolCallInput(part.input, part.invalid === true, part.error),
              },
            };
            break;
          case 'error':
            failed = true;
            yield { type: 'error', error: part.error };
            break;
          case 'abort':
            failed = true;
            yield { type: 'error', error: request.signal.reason ?? new Error('aborted') };
            break;
          default:
            break;
        }
      }
      if (failed) return;
      const response = await result.response;
      yield {
        type: 'finish',
        usage: tokenUsage(await result.usage),
        finishReason: await result.finishReason,
        assistant: response.messages.filter((m) => m.role === 'assistant'),
      };
    } catch (error) {
      // A connection dropped mid-stream can surface as a throw from the stream instead of an error part.
      yield { type: 'error', error };
    }
  };
}
