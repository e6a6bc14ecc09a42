import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownValue } from '../../util/own.js';
import { anthropicErrorBody, anthropicMessage, anthropicStreamFrames } from './anthropic-wire.js';
import { openaiCompletion, openaiErrorBody, openaiStreamFrames } from './openai-wire.js';
import {
  type RequestView,
  viewAnthropicRequest,
  viewOpenAIRequest,
  type WireFormat,
} from './request-view.js';
import {
  type Answer,
  type ErrorReply,
  type Outcome,
  type Resolution,
  ScriptResponder,
  type StreamErrorReply,
} from './responder.js';
import { ResponsesStore, responsesTraits, viewResponsesRequest } from './responses-view.js';
import { responsesDocument, responsesOutputItems, responsesStreamFrames } from './responses-wire.js';
import type { Script } from './script.js';
import { type Frames, type ReplyContext, sseData, sseEvent } from './wire-common.js';

/** What answered a request: the rule (null when none matched), the turn, and the kind of reply. */
export interface AnsweredBy {
  rule: number | null;
  ruleName?: string;
  turn: number;
  /** 0-based delivery count of this exact request at this turn (a retry is 1, 2, …) when the turn scripts a failure (error, reset, truncate, malformed, stream_error); else 0. */
  attempt: number;
  outcome: Outcome['kind'];
}

export interface RecordedRequest {
  /** 0-based arrival order. */
  seq: number;
  wire: WireFormat;
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (the raw text when it was not JSON). */
  body: unknown;
  view: RequestView;
  answeredBy: AnsweredBy;
  /** Epoch milliseconds (from the injected clock) when the request arrived. */
  startedAt: number;
  /** When the reply finished or the connection closed; undefined while in flight. */
  endedAt?: number;
}

export interface ScriptedServerOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Clock for `startedAt`/`endedAt` and reply timestamps. */
  now?: () => number;
  /** Tool-call id generator (prefix is "call" or "toolu"); random by default. */
  newToolCallId?: (prefix: string) => string;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Base URL for OpenAI-style clients (`…/v1`, they append `/chat/completions` or `/responses`). */
  openaiBaseUrl: string;
  /** Base URL for Anthropic clients (`…/v1`, they append `/messages`). */
  anthropicBaseUrl: string;
  /** Every request so far, in arrival order; live. */
  readonly requests: readonly RecordedRequest[];
  /** Resolves once `count` requests have arrived (not necessarily finished); rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Stops listening and drops open connections, including replies still in their delay. Idempotent. */
  close(): Promise<void>;
}

const ROUTES: Record<string, WireFormat> = {
  '/v1/chat/completions': 'openai',
  '/chat/completions': 'openai',
  '/v1/responses': 'responses',
  '/responses': 'responses',
  '/v1/messages': 'anthropic',
  '/messages': 'anthropic',
};

/** How one wire format reads requests and writes replies. */
interface WireCodec {
  view(body: unknown): RequestView;
  /** Prefix of scripted tool-call ids, as the real provider's ids look. */
  callPrefix: string;
  replyId(seq: number): string;
  errorBody(error: ErrorReply): unknown;
  document(answer: Answer, reply: ReplyContext, body: unknown): unknown;
  frames(answer: Answer, reply: ReplyContext, body: unknown): Frames;
  /** The error event of a stream, sent as its `sequence`th frame. */
  streamError(error: StreamErrorReply, sequence: number): string;
}

const CODECS: Record<WireFormat, WireCodec> = {
  openai: {
    view: viewOpenAIRequest,
    callPrefix: 'call',
    replyId: (seq) => `chatcmpl-scripted-${seq}`,
    errorBody: openaiErrorBody,
    document: openaiCompletion,
    frames: (answer, reply, body) => openaiStreamFrames(answer, reply, wantsUsage(body)),
    streamError: ({ type, message }) => sseData({ error: { message, type, param: null, code: type } }),
  },
  responses: {
    view: viewResponsesRequest,
    callPrefix: 'call',
    replyId: (seq) => `resp_scripted${seq}`,
    errorBody: openaiErrorBody,
    document: (answer, reply, body) => responsesDocument(answer, reply, responsesTraits(body)),
    frames: (answer, reply, body) => responsesStreamFrames(answer, reply, responsesTraits(body)),
    streamError: ({ type, message }, sequence) =>
      sseEvent('error', { type: 'error', sequence_number: sequence, code: type, message, param: null }),
  },
  anthropic: {
    view: viewAnthropicRequest,
    callPrefix: 'toolu',
    replyId: (seq) => `msg_scripted_${seq}`,
    errorBody: anthropicErrorBody,
    document: anthropicMessage,
    frames: anthropicStreamFrames,
    streamError: (error) => sseEvent('error', { type: 'error', error }),
  },
};

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, wire: WireFormat, error: ErrorReply): void {
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  sendJson(res, error.status, CODECS[wire].errorBody(error), headers);
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve, reject) => res.write(data, (err) => (err ? reject(err) : resolve())));
}

/** Half the content (rounded up) so the client has seen output when the connection drops. */
function partialFrames(frames: Frames): string[] {
  return [...frames.head, ...frames.content.slice(0, Math.ceil(frames.content.length / 2))];
}

/** OpenAI sends the usage chunk only when asked (`stream_options.include_usage`). */
function wantsUsage(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || !('stream_options' in body)) return false;
  const options = body.stream_options;
  return (
    options !== null &&
    typeof options === 'object' &&
    'include_usage' in options &&
    options.include_usage === true
  );
}

/** A line where the wire needs JSON that is not JSON (a proxy mangling the stream, a broken server). */
const MALFORMED_LINE = '{"scripted": malformed';

async function sendAnswer(
  res: ServerResponse,
  wire: WireFormat,
  outcome: Exclude<Outcome, { kind: 'error' }>,
  reply: ReplyContext,
  request: { body: unknown; stream: boolean },
): Promise<void> {
  const { kind } = outcome;
  if (!request.stream && kind === 'stream_error') {
    // A whole document has no place for an event: the same error comes as the HTTP error it stands for.
    return sendError(res, wire, { status: 500, type: outcome.error.type, message: outcome.error.message });
  }
  if (!request.stream) {
    const text = JSON.stringify(CODECS[wire].document(outcome.answer, reply, request.body));
    if (kind === 'malformed') return sendJsonText(res, 200, MALFORMED_LINE);
    if (kind !== 'reset' && kind !== 'truncated') return sendJsonText(res, 200, text);
    res.writeHead(200, { 'content-type': 'application/json' });
    await write(res, text.slice(0, Math.ceil(text.length / 2)));
    if (kind === 'reset') res.destroy();
    else res.end();
    return;
  }
  const frames = CODECS[wire].frames(outcome.answer, reply, request.body);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  if (kind === 'reset' || kind === 'truncated' || kind === 'stream_error') {
    const partial = partialFrames(frames);
    await write(res, partial.join(''));
    if (kind === 'stream_error') res.end(CODECS[wire].streamError(outcome.error, partial.length));
    else if (kind === 'reset') res.destroy();
    else res.end();
    return;
  }
  const broken = kind === 'malformed' ? [`data: ${MALFORMED_LINE}\n\n`] : [];
  // First, where it hurts most: before anything the client could show.
  for (const frame of [...broken, ...frames.head, ...frames.content, ...frames.tail]) res.write(frame);
  res.end();
}

/** Starts a loopback server answering OpenAI and Anthropic requests from `script`. */
export async function startScriptedServer(
  script: Script,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const responder = new ScriptResponder(script, { newToolCallId: options.newToolCallId });
  const responsesStore = new ResponsesStore();
  const requests: RecordedRequest[] = [];
  const waiters = new Set<() => void>();
  const closing = new AbortController();

  function record(entry: RecordedRequest): void {
    requests.push(entry);
    for (const waiter of [...waiters]) waiter();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = now();
    // Registered first: the client may hang up while its body is still being read.
    const hungUp = new AbortController();
    let entry: RecordedRequest | undefined;
    res.once('close', () => {
      hungUp.abort();
      if (entry) entry.endedAt = now();
    });
    const path = (req.url ?? '/').split('?')[0];
    const wire = ownValue(ROUTES, path);
    const text = await readBody(req);
    if (req.method !== 'POST' || wire === undefined) {
      sendError(res, 'openai', {
        status: 404,
        message: `scripted server: no route ${req.method} ${path}; use POST /v1/chat/completions, POST /v1/responses or POST /v1/messages`,
      });
      return;
    }
    const parsed = parseJson(text);
    const body = parsed.ok ? parsed.value : text;
    const codec = CODECS[wire];
    // Responses requests may name earlier output by reference; the script sees what they refer to.
    const expanded = wire === 'responses' && parsed.ok ? responsesStore.expand(parsed.value) : undefined;
    const view = codec.view(expanded?.ok ? expanded.body : parsed.ok ? parsed.value : {});
    const failure: ErrorReply | undefined = !parsed.ok
      ? { status: 400, message: 'scripted server: request body is not JSON' }
      : expanded && !expanded.ok
        ? expanded.error
        : undefined;
    const resolution: Resolution = failure
      ? { rule: null, turn: 0, attempt: 0, delayMs: 0, outcome: { kind: 'error', error: failure } }
      : responder.respond(view, codec.callPrefix);
    const { outcome } = resolution;
    entry = {
      seq: requests.length,
      wire,
      method: req.method,
      path,
      headers: headersOf(req),
      body,
      view,
      answeredBy: {
        rule: resolution.rule,
        ...(resolution.ruleName ? { ruleName: resolution.ruleName } : {}),
        turn: resolution.turn,
        attempt: resolution.attempt,
        outcome: outcome.kind,
      },
      startedAt,
      ...(hungUp.signal.aborted ? { endedAt: now() } : {}),
    };
    record(entry);

    if (resolution.delayMs > 0) {
      const gone = AbortSignal.any([closing.signal, hungUp.signal]);
      const waited = await sleep(resolution.delayMs, true, { signal: gone }).catch(() => false);
      if (!waited) return;
    }
    if (outcome.kind === 'error') return sendError(res, wire, outcome.error);
    const reply = {
      id: codec.replyId(entry.seq),
      model: view.model || 'scripted',
      created: Math.floor(now() / 1000),
    };
    await sendAnswer(res, wire, outcome, reply, { body, stream: view.stream });
    if (expanded?.ok && (outcome.kind === 'answer' || outcome.kind === 'unmatched')) {
      const output = responsesOutputItems(outcome.answer, reply, responsesTraits(body));
      responsesStore.remember(expanded.body, reply.id, output);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `scripted server: ${String(err)}`, type: 'api_error' } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: `${url}/v1`,
    requests,
    waitForRequests(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `scripted server: expected ${count} requests within ${timeoutMs} ms, got ${requests.length}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
