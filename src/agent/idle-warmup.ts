import type { ModelMessage } from 'ai';
import type { ProviderType } from '../config/schema.js';
import { warmReplySignal } from '../provider/warm-reply.js';
import type { ModelCaller, ModelRequest, ModelStreamPart } from './model-stream.js';

/** Parts that mean the model has started answering; stream start-up warnings do not. */
const ANSWERING: ReadonlySet<ModelStreamPart['type']> = new Set([
  'text',
  'reasoning',
  'tool_call',
  'finish',
  'error',
]);

/**
 * Wraps a model caller so `warm` runs once, at the first call that has waited `delayMs` without an answer:
 * while the process has nothing else to do. A model that answers faster than that never competes with
 * the warm-up for the main thread; the work it would do then happens on first use instead (issue 17).
 */
export function warmWhileWaiting(callModel: ModelCaller, warm: () => void, delayMs: number): ModelCaller {
  let warmed = false;
  // Once warmed, a call is the model's own stream: no generator in between for every part (issue 17).
  return (request) => (warmed ? callModel(request) : waiting(request));
  async function* waiting(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const timer = setTimeout(() => {
      warmed = true;
      warm();
    }, delayMs);
    timer.unref();
    try {
      for await (const part of callModel(request)) {
        if (ANSWERING.has(part.type)) clearTimeout(timer);
        yield part;
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Node's own first-use costs that the first model reply would otherwise pay inside a turn (issue 17): a
 * reply's bytes pass a TextDecoderStream and transform streams piped together, whose internal modules
 * load on first use, and the pipe's end releases a reader and a writer, which builds (once per process)
 * the error each reports, formatting its stack in a fresh VM context: 8-12 ms on a 2-core machine in all.
 * The same path, run once on a few bytes here, leaves none of that to the first reply.
 */
export async function warmNodeInternals(): Promise<void> {
  const bytes = new TextEncoder().encode('data: {}\n\n');
  const reader = new ReadableStream<BufferSource>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  })
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new TransformStream<string, string>())
    .getReader();
  while (!(await reader.read()).done);
  reader.releaseLock();
}

/** A short conversation with every kind of part a turn adds: the request is converted as a real one is. */
const WARM_HISTORY: ModelMessage[] = [
  { role: 'user', content: 'warm' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'ok' },
      { type: 'tool-call', toolCallId: 'call_warm', toolName: 'warm', input: { path: 'a' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_warm',
        toolName: 'warm',
        output: { type: 'text', value: 'a' },
      },
    ],
  },
];

/**
 * The model path's first-use costs, paid while the first model call waits instead of inside the turn
 * its answer starts (issue 17): one whole call through `callModel` (the route's own provider object:
 * request conversion, its HTTP helpers, the reply's SSE parsing, chunk schemas and tool-call assembly)
 * answered in-process with the `type` wire's canned reply (src/provider/warm-reply.ts). Nothing is
 * sent; the parts it yields are dropped.
 */
export async function warmModelPath(
  callModel: ModelCaller,
  request: Pick<ModelRequest, 'system' | 'tools'>,
  type: ProviderType,
): Promise<void> {
  const parts = callModel({ ...request, messages: WARM_HISTORY, signal: warmReplySignal(type) });
  for await (const _ of parts);
}
