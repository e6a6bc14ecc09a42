import { createHttpFetch, type FetchLimits, fetchResponse, ModelTimeoutError } from './http-fetch.js';

export { ModelTimeoutError } from './http-fetch.js';

/** Defaults that suit a slow reasoning model: a minute to start answering, five minutes between chunks. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** Until the response headers arrive (`connectMs`), and between two chunks of the response body (`idleMs`). */
export type Timeouts = FetchLimits;

/**
 * A `fetch` for the provider SDKs with cadre's own time limits (issue 16, A4): the request is aborted
 * when no response arrives within `connectMs`, and the body fails when no chunk arrives for `idleMs`, so
 * a stalled server is retried and then reported within minutes instead of after undici's defaults.
 * Without `base` the limits are kept by cadre's own HTTP fetch itself; a `base` is wrapped.
 */
export function timedFetch(timeouts: Timeouts, base?: typeof fetch): typeof fetch {
  if (base) return withTimeouts(timeouts, base);
  return createHttpFetch({
    limits: timeouts,
    fallback: withTimeouts(timeouts, (input, init) => fetch(input, init)),
  });
}

/** `base` with the limits kept around it: its response body is read through a stream that times each chunk. */
function withTimeouts(timeouts: Timeouts, base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    const connect = setTimeout(
      () => controller.abort(ModelTimeoutError.connect(timeouts.connectMs)),
      timeouts.connectMs,
    );
    let response: Response;
    try {
      response = await base(input, { ...init, signal: controller.signal });
    } catch (error) {
      outer?.removeEventListener('abort', onAbort);
      throw controller.signal.reason instanceof ModelTimeoutError ? controller.signal.reason : error;
    } finally {
      clearTimeout(connect);
    }
    if (!response.body) {
      outer?.removeEventListener('abort', onAbort);
      return response;
    }
    const reader = response.body.getReader();
    let idle: NodeJS.Timeout | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        const timedOut = new Promise<never>((_, reject) => {
          idle = setTimeout(() => {
            const error = ModelTimeoutError.idle(timeouts.idleMs);
            controller.abort(error);
            reject(error);
          }, timeouts.idleMs);
        });
        try {
          const chunk = await Promise.race([reader.read(), timedOut]);
          if (chunk.done) {
            outer?.removeEventListener('abort', onAbort);
            stream.close();
          } else stream.enqueue(chunk.value);
        } catch (error) {
          outer?.removeEventListener('abort', onAbort);
          stream.error(error);
        } finally {
          clearTimeout(idle);
        }
      },
      cancel(reason) {
        clearTimeout(idle);
        outer?.removeEventListener('abort', onAbort);
        return reader.cancel(reason);
      },
    });
    const { status, statusText, url, redirected, headers } = response;
    return fetchResponse({ status, statusText, url, redirected, headers }, body);
  };
}
