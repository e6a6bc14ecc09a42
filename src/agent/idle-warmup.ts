import type { ModelCaller, ModelStreamPart } from './model-stream.js';

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
  return async function* (request) {
    if (warmed) {
      yield* callModel(request);
      return;
    }
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
  };
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
