import { APICallError, InvalidResponseDataError, JSONParseError, TypeValidationError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  classifyModelError,
  DEFAULT_RETRY_POLICY,
  ModelStreamTruncated,
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
  const parseError = new JSONParseError({ text: '{"oops', cause: new SyntaxError('Unterminated string') });
  it.each<[string, unknown, { retryable: boolean; cause: string; message: RegExp }]>([
    [
      'a stream that ended without its final event',
      new ModelStreamTruncated('no final event'),
      { retryable: true, cause: 'truncated stream', message: /ended before the reply was complete/ },
    ],
    [
      "the chat completions SDK's own truncation error",
      new InvalidResponseDataError({
        data: undefined,
        message: 'Response stream ended without a finish reason.',
      }),
      {
        retryable: true,
        cause: 'truncated stream',
        message: /ended before the reply was complete \(no finish reason\)/,
      },
    ],
    [
      'a stream line that is not JSON',
      parseError,
      {
        retryable: false,
        cause: 'malformed stream',
        message: /malformed reply: JSON parsing failed: Text: \{"oops/,
      },
    ],
    [
      'a chunk of the wrong shape',
      new TypeValidationError({ value: { choices: 7 }, cause: new Error('expected array') }),
      { retryable: false, cause: 'malformed stream', message: /malformed reply: Type validation failed/ },
    ],
    [
      'a non-streaming body that is not JSON (wrapped in a 200 APICallError)',
      new APICallError({
        message: 'Invalid JSON response',
        url: 'http://x',
        requestBodyValues: {},
        statusCode: 200,
        responseBody: '{"oops',
        cause: parseError,
      }),
      { retryable: false, cause: 'malformed stream', message: /malformed reply/ },
    ],
    [
      'a first chunk that failed to parse, rethrown by the Anthropic SDK as HTTP 500',
      new APICallError({
        message: parseError.message,
        url: 'http://x',
        requestBodyValues: {},
        statusCode: 500,
        responseBody: JSON.stringify(parseError),
        isRetryable: false,
      }),
      { retryable: false, cause: 'malformed stream', message: /malformed reply: JSON parsing failed/ },
    ],
  ])('classifies %s', (_, error, expected) => {
    const classified = classifyModelError(error);
    expect(classified).toMatchObject({ retryable: expected.retryable, cause: expected.cause });
    expect(classified.message).toMatch(expected.message);
  });

  it.each([
    [
      { type: 'overloaded_error', message: 'Overloaded' },
      true,
      'stream error: overloaded_error',
      'overloaded_error: Overloaded',
    ],
    [
      { type: 'invalid_request_error', message: 'prompt is too long' },
      false,
      'stream error: invalid_request_error',
      'invalid_request_error: prompt is too long',
    ],
    [
      { code: 'server_error', message: 'The server had an error', isRetryable: true },
      true,
      'stream error: server_error',
      'server_error: The server had an error',
    ],
    [{ message: 'something odd' }, false, 'stream error', 'something odd'],
    [
      { type: 'error', code: 'overloaded_error', message: 'Overloaded', isRetryable: false },
      true,
      'stream error: overloaded_error',
      'overloaded_error: Overloaded',
    ],
  ])(
    'reads an error event inside a stream (%o) instead of "[object Object]"',
    (event, retryable, cause, message) => {
      expect(classifyModelError(event)).toEqual({ retryable, cause, message });
    },
  );

  it('still calls a genuine HTTP 500 from the provider an HTTP 500', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'Internal error' } });
    expect(classifyModelError(apiError(500, {}, body))).toMatchObject({ retryable: true, cause: 'HTTP 500' });
  });

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
