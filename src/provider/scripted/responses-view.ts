import {
  isRecord,
  optionalNumber,
  optionalString,
  type RequestView,
  records,
  type ViewMessage,
  type ViewReasoning,
  withoutUndefined,
} from './request-view.js';
import type { ErrorReply } from './responder.js';
import type { ResponsesRequestTraits } from './responses-wire.js';

type JsonRecord = Record<string, unknown>;

/** Text of a Responses `content`: a string or `input_text`/`output_text`/`text` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return records(content)
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
}

/** The input as a list of items (`input` may be a bare string: one user message). */
function inputItems(body: JsonRecord): JsonRecord[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return records(body.input);
}

/** A tool call item as the view's call: function calls carry JSON arguments, custom tools free text. */
function callOf(item: JsonRecord): { id: string; name: string; arguments: string } | undefined {
  const id = optionalString(item.call_id) ?? '';
  switch (item.type) {
    case 'function_call':
      return { id, name: optionalString(item.name) ?? '', arguments: optionalString(item.arguments) ?? '' };
    case 'custom_tool_call':
      return { id, name: optionalString(item.name) ?? '', arguments: optionalString(item.input) ?? '' };
    case 'local_shell_call':
      return { id, name: 'local_shell', arguments: JSON.stringify(item.action ?? {}) };
    default:
      return undefined;
  }
}

const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

/**
 * Views a Responses request whose `item_reference`s and `previous_response_id` were already expanded.
 * Call items that follow an assistant message (or each other) join it, so parallel calls are one round,
 * as on the other wires.
 */
export function viewResponsesRequest(body: unknown): RequestView {
  const request = isRecord(body) ? body : {};
  const system =
    typeof request.instructions === 'string' && request.instructions ? [request.instructions] : [];
  const messages: ViewMessage[] = [];
  for (const item of inputItems(request)) {
    const call = callOf(item);
    if (call) {
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
      else messages.push({ role: 'assistant', text: '', toolCalls: [call] });
    } else if (typeof item.type === 'string' && OUTPUT_TYPES.has(item.type)) {
      messages.push({
        role: 'tool',
        text: typeof item.output === 'string' ? item.output : contentText(item.output),
        toolCallId: optionalString(item.call_id) ?? '',
      });
    } else if (item.type === undefined || item.type === 'message') {
      const text = contentText(item.content);
      if (item.role === 'system' || item.role === 'developer') system.push(text);
      else if (item.role === 'user') messages.push({ role: 'user', text });
      else if (item.role === 'assistant') messages.push({ role: 'assistant', text });
    }
  }
  const reasoning = isRecord(request.reasoning) ? request.reasoning : {};
  return {
    model: optionalString(request.model) ?? '',
    system: system.join('\n\n'),
    messages,
    tools: records(request.tools).map((tool) => optionalString(tool.name) ?? optionalString(tool.type) ?? ''),
    stream: request.stream === true,
    temperature: optionalNumber(request.temperature),
    maxTokens: optionalNumber(request.max_output_tokens),
    reasoning: withoutUndefined<ViewReasoning>({ effort: optionalString(reasoning.effort) }),
  };
}

export function responsesTraits(body: unknown): ResponsesRequestTraits {
  const request = isRecord(body) ? body : {};
  const include = Array.isArray(request.include) ? request.include : [];
  return {
    customTools: new Set(
      records(request.tools)
        .filter((tool) => tool.type === 'custom')
        .map((tool) => optionalString(tool.name) ?? ''),
    ),
    encryptedReasoning: include.includes('reasoning.encrypted_content'),
  };
}

/**
 * What the real API keeps of stored responses (`store` is true unless the request says false): every
 * output item by id, for `item_reference` inputs, and every response's whole context, for
 * `previous_response_id`. It lives as long as the server.
 */
export class ResponsesStore {
  private readonly items = new Map<string, JsonRecord>();
  private readonly contexts = new Map<string, JsonRecord[]>();

  /** The request with references replaced by the items they name, or the error the real API gives. */
  expand(body: unknown): { ok: true; body: JsonRecord } | { ok: false; error: ErrorReply } {
    const request = isRecord(body) ? body : {};
    const previousId = optionalString(request.previous_response_id);
    const previous = previousId === undefined ? [] : this.contexts.get(previousId);
    if (!previous) {
      return { ok: false, error: notFound(`Previous response with id '${previousId}' not found.`) };
    }
    const input: JsonRecord[] = [...previous];
    for (const item of inputItems(request)) {
      if (item.type !== 'item_reference') {
        input.push(item);
        continue;
      }
      const id = optionalString(item.id) ?? '';
      const stored = this.items.get(id);
      if (!stored) return { ok: false, error: notFound(`Item with id '${id}' not found.`) };
      input.push(stored);
    }
    return { ok: true, body: { ...request, input } };
  }

  /** Keeps a finished response (unless the request said `store: false`). */
  remember(expanded: JsonRecord, responseId: string, output: JsonRecord[]): void {
    if (expanded.store === false) return;
    for (const item of output) if (typeof item.id === 'string') this.items.set(item.id, item);
    this.contexts.set(responseId, [...inputItems(expanded), ...output]);
  }
}

function notFound(message: string): ErrorReply {
  return { status: 404, message, type: 'invalid_request_error' };
}
