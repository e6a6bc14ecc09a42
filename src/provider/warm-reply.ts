import type { ProviderType } from '../config/schema.js';

/**
 * A model reply that never leaves the process (issue 17). The first real reply of a session would
 * otherwise pay, inside its turn, for everything the provider SDK does the first time: building its chunk
 * schemas, compiling its SSE parser and tool-call assembly, the streams in between. A request made with
 * `warmReplySignal(type)` as its abort signal is answered by cadre's HTTP fetch with this canned reply of
 * the route's wire (a short text and one tool call), so the same provider object parses it end to end
 * while the session waits on its first real answer. Nothing is sent anywhere.
 */

type Event = Record<string, unknown> & { type?: string };

const CALL = { id: 'call_warm', name: 'warm', arguments: '{"path":"a"}' };

function chatFrames(): Event[] {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'warm',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'warm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'ok' }),
    chunk({
      tool_calls: [{ index: 0, id: CALL.id, type: 'function', function: { name: CALL.name, arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: CALL.arguments } }] }),
    chunk({}, 'tool_calls'),
    {
      id: 'warm',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'warm',
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  ];
}

function anthropicFrames(): Event[] {
  return [
    {
      type: 'message_start',
      message: {
        id: 'msg_warm',
        type: 'message',
        role: 'assistant',
        model: 'warm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: CALL.id, name: CALL.name, input: {} },
    },
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: CALL.arguments },
    },
    { type: 'content_block_stop', index: 1 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 1 },
    },
    { type: 'message_stop' },
  ];
}

function responsesFrames(): Event[] {
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: 'resp_warm',
    object: 'response',
    created_at: 0,
    status,
    error: null,
    incomplete_details: null,
    model: 'warm',
    output,
    parallel_tool_calls: true,
    usage,
  });
  const text = (value: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: value });
  const message = { id: 'msg_warm', type: 'message', role: 'assistant' };
  const call = { id: 'fc_warm', type: 'function_call', call_id: CALL.id, name: CALL.name };
  const part = { item_id: message.id, output_index: 0, content_index: 0 };
  const done = [
    { ...message, status: 'completed', content: [text('ok')] },
    { ...call, status: 'completed', arguments: CALL.arguments },
  ];
  const events: Event[] = [
    { type: 'response.created', response: response('in_progress', [], null) },
    { type: 'response.in_progress', response: response('in_progress', [], null) },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...message, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', ...part, part: text('') },
    { type: 'response.output_text.delta', ...part, delta: 'ok', logprobs: [] },
    { type: 'response.output_text.done', ...part, text: 'ok', logprobs: [] },
    { type: 'response.content_part.done', ...part, part: text('ok') },
    { type: 'response.output_item.done', output_index: 0, item: done[0] },
    {
      type: 'response.output_item.added',
      output_index: 1,
      item: { ...call, status: 'in_progress', arguments: '' },
    },
    {
      type: 'response.function_call_arguments.delta',
      item_id: call.id,
      output_index: 1,
      delta: CALL.arguments,
    },
    {
      type: 'response.function_call_arguments.done',
      item_id: call.id,
      output_index: 1,
      arguments: CALL.arguments,
    },
    { type: 'response.output_item.done', output_index: 1, item: done[1] },
    {
      type: 'response.completed',
      response: response('completed', done, {
        input_tokens: 1,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 2,
      }),
    },
  ];
  return events.map((event, index) => ({ ...event, sequence_number: index }));
}

/** The canned reply of each wire as its server streams it. */
function replyText(type: ProviderType): string {
  switch (type) {
    case 'anthropic':
      return anthropicFrames()
        .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
        .join('');
    case 'openai':
      return responsesFrames()
        .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
        .join('');
    case 'openai-compatible':
    case 'scripted':
      return `${chatFrames()
        .map((event) => `data: ${JSON.stringify(event)}\n\n`)
        .join('')}data: [DONE]\n\n`;
  }
}

const replies = new WeakMap<AbortSignal, Buffer>();

/**
 * A signal (never aborted) that makes cadre's HTTP fetch answer with the canned reply of the `type` wire
 * instead of sending the request.
 */
export function warmReplySignal(type: ProviderType): AbortSignal {
  const signal = new AbortController().signal;
  replies.set(signal, Buffer.from(replyText(type)));
  return signal;
}

/** The canned reply body a request with this signal is answered with; undefined for any other signal. */
export function warmReplyFor(signal: AbortSignal | null | undefined): Buffer | undefined {
  return signal ? replies.get(signal) : undefined;
}
