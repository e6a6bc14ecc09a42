import type { Answer, ErrorReply } from './responder.js';
import {
  errorTypeFor,
  type Frames,
  type ReplyContext,
  splitArguments,
  splitForStreaming,
  sseEvent,
} from './wire-common.js';

/** Anthropic messages: `POST /v1/messages`. */

/** Thinking blocks must carry a signature for clients to send them back; the script has none to give. */
const THINKING_SIGNATURE = 'scripted';

function stopReason(answer: Answer): string {
  return answer.finish === 'tool_calls' ? 'tool_use' : 'end_turn';
}

/** Non-streaming replies carry tool input as an object; malformed scripted arguments go out as the raw string. */
function toolInput(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

export function anthropicMessage(answer: Answer, reply: ReplyContext): unknown {
  return {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: [
      ...(answer.reasoning
        ? [{ type: 'thinking', thinking: answer.reasoning, signature: THINKING_SIGNATURE }]
        : []),
      ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
      ...answer.toolCalls.map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: toolInput(call.arguments),
      })),
    ],
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { input_tokens: answer.usage.inputTokens, output_tokens: answer.usage.outputTokens },
  };
}

interface Block {
  start: unknown;
  deltas: unknown[];
}

function blocksOf(answer: Answer): Block[] {
  const blocks: Block[] = [];
  if (answer.reasoning) {
    blocks.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [
        ...splitForStreaming(answer.reasoning).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: THINKING_SIGNATURE },
      ],
    });
  }
  if (answer.text) {
    blocks.push({
      start: { type: 'text', text: '' },
      deltas: splitForStreaming(answer.text).map((text) => ({ type: 'text_delta', text })),
    });
  }
  for (const call of answer.toolCalls) {
    blocks.push({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      deltas: splitArguments(call.arguments).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      })),
    });
  }
  return blocks;
}

export function anthropicStreamFrames(answer: Answer, reply: ReplyContext): Frames {
  const content = blocksOf(answer).flatMap((block, index) => [
    sseEvent('content_block_start', { type: 'content_block_start', index, content_block: block.start }),
    ...block.deltas.map((delta) =>
      sseEvent('content_block_delta', { type: 'content_block_delta', index, delta }),
    ),
    sseEvent('content_block_stop', { type: 'content_block_stop', index }),
  ]);
  return {
    head: [
      sseEvent('message_start', {
        type: 'message_start',
        message: {
          id: reply.id,
          type: 'message',
          role: 'assistant',
          model: reply.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: answer.usage.inputTokens, output_tokens: 0 },
        },
      }),
    ],
    content,
    tail: [
      sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason(answer), stop_sequence: null },
        usage: { output_tokens: answer.usage.outputTokens },
      }),
      sseEvent('message_stop', { type: 'message_stop' }),
    ],
  };
}

export function anthropicErrorBody(error: ErrorReply): unknown {
  return { type: 'error', error: { type: error.type ?? errorTypeFor(error.status), message: error.message } };
}
