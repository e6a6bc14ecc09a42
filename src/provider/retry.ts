import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from '@ai-sdk/provider';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The default policy, with `CADRE_RETRY_BASE_MS` (a non-negative integer) replacing the base delay, so
 * end-to-end tests and benchmarks of retries do not wait seconds. Anything else in the variable is ignored.
 */
export function retryPolicyFromEnv(env: NodeJS.ProcessEnv): RetryPolicy {
  const raw = env.CADRE_RETRY_BASE_MS;
  const base = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isInteger(base) || base < 0) return DEFAULT_RETRY_POLICY;
  return { ...DEFAULT_RETRY_POLICY, baseDelayMs: base };
}

export interface ClassifiedError {
  retryable: boolean;
  /** Short cause for the user: "HTTP 429", "connection reset", … */
  cause: string;
  /** The provider's own message, kept whole for the final failure. */
  message: string;
  retryAfterMs?: number;
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 8) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers['retry-after-ms'];
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers['retry-after'];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function providerMessage(error: APICallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
      const inner = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
      if (inner) return inner;
      if (parsed.message) return parsed.message;
    } catch {
      return body.slice(0, 500);
    }
  }
  return error.message;
}

function networkCode(chain: unknown[]): string | undefined {
  for (const link of chain) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * The model's stream ended cleanly but without its final event (`message_stop`, `response.completed`, a
 * finish reason): the server or a proxy cut the reply short. Retried, since the next try may well finish.
 */
export class ModelStreamTruncated extends Error {
  override name = 'ModelStreamTruncated';
  constructor(detail: string) {
    super(`the model stream ended before the reply was complete (${detail})`);
  }
}

const TRUNCATED_BY_SDK = /ended without a finish reason/i;
/** What the SDKs name the error they rethrow when a stream's first chunk fails to parse (as "HTTP 500"). */
const PARSE_ERROR_NAMES = new Set(['AI_JSONParseError', 'AI_TypeValidationError']);

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}

/** A reply that is not the wire format it claims (a line that is not JSON, a chunk of the wrong shape). */
function malformedReply(chain: unknown[]): ClassifiedError | undefined {
  for (const link of chain) {
    if (link instanceof ModelStreamTruncated) {
      return { retryable: true, cause: 'truncated stream', message: link.message };
    }
    if (InvalidResponseDataError.isInstance(link) && TRUNCATED_BY_SDK.test(link.message)) {
      const { message } = new ModelStreamTruncated('no finish reason');
      return { retryable: true, cause: 'truncated stream', message };
    }
    const parseError = JSONParseError.isInstance(link) || TypeValidationError.isInstance(link);
    // The Anthropic SDK turns a first chunk that fails to parse into an "HTTP 500" carrying that error.
    const wrapped =
      APICallError.isInstance(link) &&
      !link.isRetryable &&
      PARSE_ERROR_NAMES.has(parsedName(link.responseBody));
    if (parseError || wrapped || InvalidResponseDataError.isInstance(link)) {
      return {
        retryable: false,
        cause: 'malformed stream',
        message: `the model server sent a malformed reply: ${firstLine((link as Error).message)}`,
      };
    }
  }
  return undefined;
}

function parsedName(body: string | undefined): string {
  if (!body) return '';
  try {
    const parsed = JSON.parse(body) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : '';
  } catch {
    return '';
  }
}

const RETRYABLE_STREAM_ERRORS = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'server_error',
]);

/**
 * An error event inside a stream (Anthropic `event: error`, a Responses `error` event): the SDKs pass its
 * payload on as a plain object, which would otherwise read "[object Object]".
 */
function streamErrorEvent(error: unknown): ClassifiedError | undefined {
  if (error === null || typeof error !== 'object' || error instanceof Error) return undefined;
  const event = error as { message?: unknown; type?: unknown; code?: unknown; isRetryable?: unknown };
  if (typeof event.message !== 'string') return undefined;
  // A Responses error event keeps its own type ("error") beside the code that says what went wrong.
  const type =
    ([event.type, event.code].find((v) => typeof v === 'string' && v !== 'error') as string | undefined) ??
    '';
  return {
    retryable: event.isRetryable === true || RETRYABLE_STREAM_ERRORS.has(type),
    cause: type ? `stream error: ${type}` : 'stream error',
    message: type ? `${type}: ${event.message}` : event.message,
  };
}

/** Decides whether a model-call failure is worth retrying (SPEC 2.2: 429, 5xx, reset, timeout). */
export function classifyModelError(error: unknown): ClassifiedError {
  const chain = causeChain(error);
  const specific = malformedReply(chain) ?? streamErrorEvent(error);
  if (specific) return specific;
  for (const link of chain) {
    if (APICallError.isInstance(link)) {
      const status = link.statusCode;
      // No status, or a success status: the connection failed, possibly after the reply had begun streaming.
      if (status === undefined || status < 400) {
        const code = networkCode(chain);
        return {
          retryable: true,
          cause: code ?? (status === undefined ? 'connection failure' : 'connection reset'),
          message: code ? `${link.message} (${code})` : link.message,
          retryAfterMs: parseRetryAfter(link.responseHeaders),
        };
      }
      return {
        retryable: status === 408 || status === 429 || status >= 500,
        cause: `HTTP ${status}`,
        message: `HTTP ${status}: ${providerMessage(link)}`,
        retryAfterMs: parseRetryAfter(link.responseHeaders),
      };
    }
  }
  const code = networkCode(chain);
  if (code) return { retryable: true, cause: code, message: String((error as Error).message ?? code) };
  const message = error instanceof Error ? error.message : String(error);
  const networky = /terminated|socket hang up|fetch failed|network|ECONNRESET|other side closed|timed? ?out/i;
  return {
    retryable: networky.test(message),
    cause: networky.test(message) ? 'connection reset' : 'error',
    message,
  };
}

/** Exponential backoff with jitter; a server's `retry-after` is honoured as given (capped). */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs * 2);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
