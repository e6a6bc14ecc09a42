import type { Answer, ErrorReply } from './responder.js';
import {
  errorTypeFor,
  type Frames,
  type ReplyContext,
  splitArguments,
  splitForStreaming,
  sseData,
} from './wire-common.js';

/** OpenAI chat completions: `POST /v1/chat/completions`. */

function usageOf(answer: Answer) {
  const { inputTokens, outputTokens } = answer.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

export function openaiCompletion(answer: Answer, reply: ReplyContext): unknown {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text.length > 0 || answer.toolCalls.length === 0 ? answer.text : null,
          ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}),
          ...(answer.toolCalls.length > 0
            ? {
                tool_calls: answer.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        finish_reason: answer.finish,
      },
    ],
    usage: usageOf(answer),
  };
}

/** SSE chunks; the usage chunk (empty `choices`) comes only when `stream_options.include_usage` asked for it. */
export function openaiStreamFrames(answer: Answer, reply: ReplyContext, includeUsage: boolean): Frames {
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    sseData({
      id: reply.id,
      object: 'chat.completion.chunk',
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  const content = [
    ...splitForStreaming(answer.reasoning).map((piece) => chunk({ reasoning_content: piece })),
    ...splitForStreaming(answer.text).map((piece) => chunk({ content: piece })),
    ...answer.toolCalls.flatMap((call, index) => [
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
      ...splitArguments(call.arguments).map((piece) =>
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
      ),
    ]),
  ];
  const usage = includeUsage
    ? [
        sseData({
          id: reply.id,
          object: 'chat.completion.chunk',
          created: reply.created,
          model: reply.model,
          choices: [],
          usage: usageOf(answer),
        }),
      ]
    : [];
  return {
    head: [chunk({ role: 'assistant', content: '' })],
    content,
    tail: [chunk({}, answer.finish), ...usage, 'data: [DONE]\n\n'],
  };
}

export function openaiErrorBody(error: ErrorReply): unknown {
  const type = error.type ?? errorTypeFor(error.status);
  return { error: { message: error.message, type, param: null, code: type } };
}
