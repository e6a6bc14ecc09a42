import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  classifyModelError,
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  retryPolicyFromEnv,
} from '../../src/provider/retry.js';

function apiError(
  statusCode: number | undefined,
  headers: Record<string, string> = {},
  body?: string,
): APICallError {
  return new APICallError({
    message: 'Bad',
    url: 'http://x',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
  });
}

describe('classifyModelError', () => {
  it.each([
    [429, true],
    [408, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
  ])('HTTP %i is retryable: %s', (status, retryable) => {
    expect(classifyModelError(apiError(status)).retryable).toBe(retryable);
  });

  it('keeps the provider message from an OpenAI- or Anthropic-shaped error body', () => {
    const c = classifyModelError(
      apiError(500, {}, JSON.stringify({ error: { message: 'upstream exploded' } })),
    );
    expect(c.message).toBe('HTTP 500: upstream exploded');
  });

  it('reads retry-after in seconds and retry-after-ms', () => {
    expect(classifyModelError(apiError(429, { 'retry-after': '2' })).retryAfterMs).toBe(2000);
    expect(classifyModelError(apiError(429, { 'retry-after-ms': '150' })).retryAfterMs).toBe(150);
  });

  it('treats a connection reset anywhere in the cause chain as retryable', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const wrapped = new TypeError('terminated', { cause: reset });
    expect(classifyModelError(wrapped)).toMatchObject({ retryable: true, cause: 'ECONNRESET' });
  });

  it('retries a stream that broke after a 200 response began, naming the network code', () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const broken = new APICallError({
      message: 'Failed to process successful response',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError('terminated', { cause: socket }),
    });
    expect(classifyModelError(broken)).toMatchObject({ retryable: true, cause: 'UND_ERR_SOCKET' });
  });

  it('does not retry an ordinary programming error', () => {
    expect(classifyModelError(new Error('bad schema')).retryable).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially with jitter inside [half, full] of the step', () => {
    for (const [attempt, step] of [
      [1, 500],
      [2, 1000],
      [3, 2000],
    ] as const) {
      expect(retryDelayMs(attempt, DEFAULT_RETRY_POLICY, undefined, () => 0)).toBe(step / 2);
      expect(retryDelayMs(attempt, DEFAULT_RETRY_POLICY, undefined, () => 1)).toBe(step);
    }
  });

  // The expected values are written out: a server's retry-after is obeyed up to one minute, never longer.
  it.each([
    [1200, 1200],
    [0, 0],
    [-5, 0],
    [59_999, 59_999],
    [60_000, 60_000],
    [60_001, 60_000],
    [10_000_000, 60_000],
  ])('honours retry-after %i ms as %i ms (capped at one minute)', (retryAfter, expected) => {
    expect(retryDelayMs(1, DEFAULT_RETRY_POLICY, retryAfter)).toBe(expected);
  });
});

describe('retryPolicyFromEnv', () => {
  it.each([
    [undefined, DEFAULT_RETRY_POLICY.baseDelayMs],
    ['', DEFAULT_RETRY_POLICY.baseDelayMs],
    ['5', 5],
    ['0', 0],
    ['-1', DEFAULT_RETRY_POLICY.baseDelayMs],
    ['1.5', DEFAULT_RETRY_POLICY.baseDelayMs],
    ['soon', DEFAULT_RETRY_POLICY.baseDelayMs],
  ])('CADRE_RETRY_BASE_MS=%s gives a base delay of %i ms', (value, base) => {
    const policy = retryPolicyFromEnv({ CADRE_RETRY_BASE_MS: value });
    expect(policy).toEqual({ ...DEFAULT_RETRY_POLICY, baseDelayMs: base });
  });
});
