import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata, SharedV3Warning } from '@ai-sdk/provider';
import type { AssistantModelMessage, LanguageModel, ModelMessage } from 'ai';
import { requestSettingsFor } from '../provider/effort.js';
import type { TokenUsage } from '../provider/pricing.js';
import { ModelStreamTruncated } from '../provider/retry.js';
import type { ModelParams, ModelRoute } from '../provider/route.js';
import { toProviderPrompt, usageOf } from './provider-prompt.js';

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

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 400);
}

/** The model's JSON-encoded arguments; unparsable ones are kept as text with the parse problem. */
function parseToolInput(input: string): Pick<StreamedToolCall, 'input' | 'inputError'> {
  if (input.trim() === '') return { input: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch (error) {
    return { input, inputError: describeParseError(error) };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return {
      input,
      inputError: `the arguments must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`,
    };
  }
  return { input: parsed };
}

function describeWarning(warning: SharedV3Warning, route: ModelRoute): string {
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

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];

/** Collects one turn's output into the assistant message kept in history (reasoning keeps its signatures). */
class AssistantMessageBuilder {
  private readonly parts: AssistantPart[] = [];
  private readonly reasoning = new Map<
    string,
    { type: 'reasoning'; text: string; providerOptions?: SharedV3ProviderMetadata }
  >();

  text(delta: string): void {
    const last = this.parts.at(-1);
    if (last?.type === 'text') last.text += delta;
    else this.parts.push({ type: 'text', text: delta });
  }

  reasoningDelta(id: string, delta: string, metadata: SharedV3ProviderMetadata | undefined): void {
    let part = this.reasoning.get(id);
    if (!part) {
      part = { type: 'reasoning', text: '' };
      this.reasoning.set(id, part);
      this.parts.push(part);
    }
    part.text += delta;
    if (metadata) part.providerOptions = metadata;
  }

  toolCall(call: StreamedToolCall, metadata: SharedV3ProviderMetadata | undefined): void {
    this.parts.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      // Unparsable arguments are stored as `{}` so every provider accepts the history.
      input: call.inputError === undefined ? call.input : {},
      ...(metadata ? { providerOptions: metadata } : {}),
    });
  }

  message(): AssistantModelMessage {
    return { role: 'assistant', content: this.parts };
  }
}

/**
 * A ModelCaller on the provider's own `doStream`, without `streamText`: the loop owns retries, tool
 * execution and history, and `streamText` would re-validate the whole conversation with zod on every
 * turn (the largest share of the harness's per-turn cost). Only public APIs of the SDK are used.
 */
export function sdkModelCaller(model: LanguageModel, route: ModelRoute, params: ModelParams): ModelCaller {
  if (typeof model === 'string' || model.specificationVersion !== 'v3') {
    throw new Error(`provider ${route.alias ?? route.type} does not offer a v3 language model`);
  }
  const provider = model;
  return async function* callModel(request) {
    let stream: ReadableStream<LanguageModelV3StreamPart>;
    try {
      const prompt = toProviderPrompt(request.system, request.messages);
      ({ stream } = await provider.doStream({
        prompt,
        tools: request.tools.map((t) => ({
          type: 'function' as const,
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
        toolChoice: request.tools.length > 0 ? { type: 'auto' } : undefined,
        temperature: params.temperature,
        ...requestSettingsFor(route, params),
        abortSignal: request.signal,
      }));
    } catch (error) {
      yield { type: 'error', error };
      return;
    }
    const assistant = new AssistantMessageBuilder();
    let usage: TokenUsage | undefined;
    let finishReason = 'unknown';
    try {
      for await (const part of stream) {
        switch (part.type) {
          case 'stream-start':
            for (const warning of part.warnings)
              yield { type: 'warning', message: describeWarning(warning, route) };
            break;
          case 'text-delta':
            assistant.text(part.delta);
            yield { type: 'text', text: part.delta };
            break;
          case 'reasoning-delta':
            assistant.reasoningDelta(part.id, part.delta, part.providerMetadata);
            yield { type: 'reasoning', text: part.delta };
            break;
          case 'reasoning-end':
            assistant.reasoningDelta(part.id, '', part.providerMetadata);
            break;
          case 'tool-call': {
            const call: StreamedToolCall = {
              id: part.toolCallId,
              name: part.toolName,
              ...parseToolInput(part.input),
            };
            assistant.toolCall(call, part.providerMetadata);
            yield { type: 'tool_call', call };
            break;
          }
          case 'finish': {
            // The Responses SDK finishes with its initial reason (other, nothing raw) only when no
            // `response.completed`/`incomplete` event came: every real end sets one.
            const { unified, raw } = part.finishReason;
            if (route.type === 'openai' && unified === 'other' && raw === undefined) {
              yield { type: 'error', error: new ModelStreamTruncated('no response.completed event') };
              return;
            }
            usage = tokenUsage(usageOf(part.usage));
            finishReason = part.finishReason.unified;
            break;
          }
          case 'error':
            yield { type: 'error', error: part.error };
            return;
          default:
            break;
        }
      }
    } catch (error) {
      // A connection dropped mid-stream surfaces as a throw from the stream, not as an error part.
      yield { type: 'error', error: request.signal.aborted ? (request.signal.reason ?? error) : error };
      return;
    }
    if (usage === undefined) {
      yield { type: 'error', error: new ModelStreamTruncated('no final event') };
      return;
    }
    yield { type: 'finish', usage, finishReason, assistant: [assistant.message()] };
  };
}
