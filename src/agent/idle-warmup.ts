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
