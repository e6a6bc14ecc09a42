import type { Answer, AnswerToolCall } from './responder.js';
import { type Frames, type ReplyContext, splitArguments, splitForStreaming } from './wire-common.js';

/** OpenAI Responses API: `POST /v1/responses` (what `type: openai` and Codex speak). */

/** What of the request shapes the reply: its custom (freeform) tools and whether it wants reasoning back. */
export interface ResponsesRequestTraits {
  /** Names of tools declared `{"type": "custom"}`: calls to them are `custom_tool_call` items. */
  customTools: ReadonlySet<string>;
  /** `include` asked for `reasoning.encrypted_content` (clients that do not store, like Codex). */
  encryptedReasoning: boolean;
}

type Item = Record<string, unknown> & { id: string; type: string };

/** Output item ids are unique per reply: `<kind>_<reply id>_<index>`. */
function itemId(kind: string, reply: ReplyContext, index: number): string {
  return `${kind}_${reply.id.replace(/^resp_/, '')}_${index}`;
}

function outputText(text: string) {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

function callItem(call: AnswerToolCall, id: string, traits: ResponsesRequestTraits): Item {
  return traits.customTools.has(call.name)
    ? {
        id,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: call.id,
        name: call.name,
        input: call.arguments,
      }
    : {
        id,
        type: 'function_call',
        status: 'completed',
        arguments: call.arguments,
        call_id: call.id,
        name: call.name,
      };
}

/** The finished output items of an answer, in the order the real API emits them. */
export function responsesOutputItems(
  answer: Answer,
  reply: ReplyContext,
  traits: ResponsesRequestTraits,
): Item[] {
  const items: Item[] = [];
  if (answer.reasoning) {
    items.push({
      id: itemId('rs', reply, items.length),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: answer.reasoning }],
      ...(traits.encryptedReasoning
        ? { encrypted_content: Buffer.from(answer.reasoning).toString('base64') }
        : {}),
    });
  }
  if (answer.text) {
    items.push({
      id: itemId('msg', reply, items.length),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [outputText(answer.text)],
    });
  }
  for (const call of answer.toolCalls) {
    const kind = traits.customTools.has(call.name) ? 'ctc' : 'fc';
    items.push(callItem(call, itemId(kind, reply, items.length), traits));
  }
  return items;
}

function usageOf(answer: Answer) {
  const { inputTokens, outputTokens } = answer.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

function responseObject(
  reply: ReplyContext,
  status: 'in_progress' | 'completed',
  output: Item[],
  usage: unknown,
) {
  return {
    id: reply.id,
    object: 'response',
    created_at: reply.created,
    status,
    error: null,
    incomplete_details: null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    usage,
  };
}

/** The non-streaming reply: one `response` object. */
export function responsesDocument(
  answer: Answer,
  reply: ReplyContext,
  traits: ResponsesRequestTraits,
): unknown {
  return responseObject(reply, 'completed', responsesOutputItems(answer, reply, traits), usageOf(answer));
}

type Event = Record<string, unknown> & { type: string };

/** The events that stream one output item: added, its deltas, done. */
function itemEvents(item: Item, outputIndex: number): Event[] {
  const at = { item_id: item.id, output_index: outputIndex };
  const opened: Item =
    item.type === 'reasoning'
      ? { ...item, summary: [] }
      : item.type === 'message'
        ? { ...item, status: 'in_progress', content: [] }
        : item.type === 'function_call'
          ? { ...item, status: 'in_progress', arguments: '' }
          : { ...item, status: 'in_progress', input: '' };
  const events: Event[] = [{ type: 'response.output_item.added', output_index: outputIndex, item: opened }];
  if (item.type === 'reasoning') {
    const [summary] = item.summary as { text: string }[];
    const part = { ...at, summary_index: 0 };
    events.push(
      { type: 'response.reasoning_summary_part.added', ...part, part: { type: 'summary_text', text: '' } },
      ...splitForStreaming(summary.text).map((delta) => ({
        type: 'response.reasoning_summary_text.delta',
        ...part,
        delta,
      })),
      { type: 'response.reasoning_summary_text.done', ...part, text: summary.text },
      {
        type: 'response.reasoning_summary_part.done',
        ...part,
        part: { type: 'summary_text', text: summary.text },
      },
    );
  } else if (item.type === 'message') {
    const [content] = item.content as { text: string }[];
    const part = { ...at, content_index: 0 };
    events.push(
      { type: 'response.content_part.added', ...part, part: outputText('') },
      ...splitForStreaming(content.text).map((delta) => ({
        type: 'response.output_text.delta',
        ...part,
        delta,
        logprobs: [],
      })),
      { type: 'response.output_text.done', ...part, text: content.text, logprobs: [] },
      { type: 'response.content_part.done', ...part, part: outputText(content.text) },
    );
  } else if (item.type === 'function_call') {
    const args = item.arguments as string;
    events.push(
      ...splitArguments(args).map((delta) => ({
        type: 'response.function_call_arguments.delta',
        ...at,
        delta,
      })),
      { type: 'response.function_call_arguments.done', ...at, arguments: args },
    );
  } else {
    const input = item.input as string;
    events.push(
      ...splitArguments(input).map((delta) => ({
        type: 'response.custom_tool_call_input.delta',
        ...at,
        delta,
      })),
      { type: 'response.custom_tool_call_input.done', ...at, input },
    );
  }
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  return events;
}

/** Numbers the events in order (`sequence_number`, as the real API does) and frames them as SSE. */
function framed(events: Event[], first: number): string[] {
  return events.map(({ type, ...rest }, index) => {
    const payload = { type, sequence_number: first + index, ...rest };
    return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
  });
}

/**
 * The streamed reply: `response.created` and `response.in_progress`, each output item's events, then
 * `response.completed` carrying the whole response and its usage. The stream has no `[DONE]` line.
 */
export function responsesStreamFrames(
  answer: Answer,
  reply: ReplyContext,
  traits: ResponsesRequestTraits,
): Frames {
  const output = responsesOutputItems(answer, reply, traits);
  const opening = responseObject(reply, 'in_progress', [], null);
  const head: Event[] = [
    { type: 'response.created', response: opening },
    { type: 'response.in_progress', response: opening },
  ];
  const content = output.flatMap((item, index) => itemEvents(item, index));
  const tail: Event[] = [
    { type: 'response.completed', response: responseObject(reply, 'completed', output, usageOf(answer)) },
  ];
  return {
    head: framed(head, 0),
    content: framed(content, head.length),
    tail: framed(tail, head.length + content.length),
  };
}
