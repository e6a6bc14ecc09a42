import { describe, expect, it } from 'vitest';
import { classifyModelError } from '../../src/provider/retry.js';
import { ModelTimeoutError, timedFetch } from '../../src/provider/timed-fetch.js';

/** A fetch whose response headers come after `headersAfterMs` and whose body sends one chunk, then stalls. */
function stallingFetch(headersAfterMs: number): typeof fetch {
  return (_input, init) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('data: first\n\n'));
          },
        });
        resolve(new Response(body, { status: 200 }));
      }, headersAfterMs);
      init?.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(init.signal?.reason);
      });
    });
}

describe('timedFetch', () => {
  it('gives up on a server that does not start answering within the connect limit', async () => {
    const fetchWithLimit = timedFetch({ connectMs: 20, idleMs: 10_000 }, stallingFetch(60_000));
    const error = await fetchWithLimit('http://127.0.0.1/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect(classifyModelError(error)).toMatchObject({ retryable: true, cause: 'ETIMEDOUT' });
  });

  it('fails a stream that goes silent for the idle limit, after the chunks it did send', async () => {
    const fetchWithLimit = timedFetch({ connectMs: 10_000, idleMs: 20 }, stallingFetch(0));
    const response = await fetchWithLimit('http://127.0.0.1/x');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as Error).message).toMatch(/sent nothing for 20 ms/);
  });

  it('passes a caller abort through unchanged', async () => {
    const controller = new AbortController();
    const pending = timedFetch({ connectMs: 10_000, idleMs: 10_000 }, stallingFetch(60_000))(
      'http://127.0.0.1/x',
      {
        signal: controller.signal,
      },
    );
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
  });
});
