/** The wire formats the scripted server speaks: chat completions, Anthropic messages, OpenAI Responses. */
export type WireFormat = 'openai' | 'anthropic' | 'responses';

export interface ViewToolCall {
  id: string;
  name: string;
  /** The arguments as sent on the wire (a JSON string). */
  arguments: string;
}

/** One conversation message, the same shape whichever wire format carried it. */
export interface ViewMessage {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  /** Assistant messages: the tool calls the model made. */
  toolCalls?: ViewToolCall[];
  /** Tool messages: the call this result answers. */
  toolCallId?: string;
}

export interface ViewReasoning {
  /** OpenAI `reasoning_effort` / Anthropic `output_config.effort`. */
  effort?: string;
  /** Anthropic `thinking.type` ("enabled", "disabled", "adaptive"). */
  thinking?: string;
  /** Anthropic `thinking.budget_tokens`. */
  budgetTokens?: number;
}

/** A model request reduced to what scripts match on and tests assert on. */
export interface RequestView {
  model: string;
  /** Every system (and developer) message, joined by a blank line. */
  system: string;
  /** The conversation without system messages, in order. */
  messages: ViewMessage[];
  /** Names of the tools offered to the model, in order. */
  tools: string[];
  stream: boolean;
  temperature?: number;
  maxTokens?: number;
  reasoning?: ViewReasoning;
}

type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function records(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** Text of a content field that is either a string or a list of `{type: "text", text}` parts. */
function contentText(content: unknown, separator = ''): string {
  if (typeof content === 'string') return content;
  return records(content)
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join(separator);
}

export function withoutUndefined<T extends object>(value: T): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as T);
}

export function viewOpenAIRequest(body: unknown): RequestView {
  const request = isRecord(body) ? body : {};
  const system: string[] = [];
  const messages: ViewMessage[] = [];
  for (const message of records(request.messages)) {
    const text = contentText(message.content);
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(text);
        break;
      case 'user':
        messages.push({ role: 'user', text });
        break;
      case 'assistant': {
        const toolCalls = records(message.tool_calls).map((call) => {
          const fn = isRecord(call.function) ? call.function : {};
          return {
            id: optionalString(call.id) ?? '',
            name: optionalString(fn.name) ?? '',
            arguments: optionalString(fn.arguments) ?? '',
          };
        });
        messages.push(
          toolCalls.length > 0 ? { role: 'assistant', text, toolCalls } : { role: 'assistant', text },
        );
        break;
      }
      case 'tool':
        messages.push({ role: 'tool', text, toolCallId: optionalString(message.tool_call_id) ?? '' });
        break;
    }
  }
  const reasoning = isRecord(request.reasoning) ? request.reasoning : {};
  return {
    model: optionalString(request.model) ?? '',
    system: system.join('\n\n'),
    messages,
    tools: records(request.tools).map((tool) =>
      isRecord(tool.function) ? (optionalString(tool.function.name) ?? '') : '',
    ),
    stream: request.stream === true,
    temperature: optionalNumber(request.temperature),
    maxTokens: optionalNumber(request.max_tokens) ?? optionalNumber(request.max_completion_tokens),
    reasoning: withoutUndefined<ViewReasoning>({
      effort: optionalString(request.reasoning_effort) ?? optionalString(reasoning.effort),
    }),
  };
}

/** Anthropic user messages carry tool results as blocks; they become tool messages, in block order. */
function anthropicUserMessages(content: unknown): ViewMessage[] {
  if (typeof content === 'string') return [{ role: 'user', text: content }];
  const out: ViewMessage[] = [];
  for (const block of records(content)) {
    if (block.type === 'tool_result') {
      out.push({
        role: 'tool',
        text: contentText(block.content),
        toolCallId: optionalString(block.tool_use_id) ?? '',
      });
    } else if (block.type === 'text' && typeof block.text === 'string') {
      const previous = out.at(-1);
      if (previous?.role === 'user') previous.text += block.text;
      else out.push({ role: 'user', text: block.text });
    }
  }
  return out;
}

function anthropicAssistantMessage(content: unknown): ViewMessage {
  if (typeof content === 'string') return { role: 'assistant', text: content };
  const blocks = records(content);
  const text = contentText(blocks);
  const toolCalls = blocks
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({
      id: optionalString(block.id) ?? '',
      name: optionalString(block.name) ?? '',
      arguments: JSON.stringify(block.input ?? {}),
    }));
  return toolCalls.length > 0 ? { role: 'assistant', text, toolCalls } : { role: 'assistant', text };
}

export function viewAnthropicRequest(body: unknown): RequestView {
  const request = isRecord(body) ? body : {};
  const messages: ViewMessage[] = [];
  for (const message of records(request.messages)) {
    if (message.role === 'user') messages.push(...anthropicUserMessages(message.content));
    else if (message.role === 'assistant') messages.push(anthropicAssistantMessage(message.content));
  }
  const thinking = isRecord(request.thinking) ? request.thinking : {};
  const outputConfig = isRecord(request.output_config) ? request.output_config : {};
  return {
    model: optionalString(request.model) ?? '',
    system: contentText(request.system, '\n\n'),
    messages,
    tools: records(request.tools).map((tool) => optionalString(tool.name) ?? ''),
    stream: request.stream === true,
    temperature: optionalNumber(request.temperature),
    maxTokens: optionalNumber(request.max_tokens),
    reasoning: withoutUndefined<ViewReasoning>({
      effort: optionalString(outputConfig.effort),
      thinking: optionalString(thinking.type),
      budgetTokens: optionalNumber(thinking.budget_tokens),
    }),
  };
}
