import type { IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import { Duplex } from 'node:stream';
import { HttpHeaders } from './http-headers.js';
import { warmReplyFor } from './warm-reply.js';

/** What a response is made of; `fetchResponse` adds the body readers. */
export interface ResponseHead {
  status: number;
  statusText: string;
  url: string;
  redirected: boolean;
  headers: HttpHeaders | Headers;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
const MAX_REDIRECTS = 20;

/** Time limits of one request: until the response headers arrive, and between two chunks of its body. */
export interface FetchLimits {
  connectMs: number;
  idleMs: number;
}

/** A model server that stopped answering; classified as a retryable timeout. */
export class ModelTimeoutError extends Error {
  override name = 'ModelTimeoutError';
  readonly code = 'ETIMEDOUT';

  /** No response headers within the connect limit. */
  static connect(ms: number): ModelTimeoutError {
    return new ModelTimeoutError(`no response from the model server within ${ms} ms`);
  }

  /** The body sent nothing for the idle limit. */
  static idle(ms: number): ModelTimeoutError {
    return new ModelTimeoutError(`the model stream sent nothing for ${ms} ms`);
  }
}

/**
 * `fetch` for the provider SDKs over `node:http`/`node:https` (issue 17). Node's own `fetch` loads undici
 * and compiles its WASM HTTP parser on the first request, which costs a cold `cadre -p` more than all of
 * cadre's own start-up; `node:http` parses in C++ and is half loaded already. It follows redirects as
 * `fetch` does and fails the way undici does (`TypeError('fetch failed')` with the socket error as cause,
 * `terminated` for a body cut short), so the SDKs' and cadre's retry classification is unchanged. It
 * asks for no compression, so the body is what the server sent. Anything else a caller may pass (a
 * `Request`, form data, a stream body, a redirect mode, another scheme) goes to `fallback` (default: the
 * global `fetch`). With `limits`, a request without response headers within `connectMs`, or a body that
 * sends nothing for `idleMs` while it is being read, fails with a ModelTimeoutError — kept here rather
 * than in a wrapper so each body chunk passes through one web stream, not two (issue 17). A request whose
 * signal is a `warmReplySignal` is answered with that canned reply and sent nowhere.
 */
export function createHttpFetch(
  options: { limits?: FetchLimits; fallback?: typeof fetch } = {},
): typeof fetch {
  const fallback = options.fallback ?? ((input, init) => fetch(input, init));
  return async (input, init = {}) => {
    const url = typeof input === 'string' ? parseUrl(input) : input instanceof URL ? input : null;
    const body = init.body ?? undefined;
    const simpleBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
    if (
      url === null ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      !simpleBody ||
      (init.redirect !== undefined && init.redirect !== 'follow')
    ) {
      // A warm-up's request is answered here or not at all: it must never reach a network.
      if (warmReplyFor(init.signal)) throw new TypeError('fetch failed');
      return fallback(input, init);
    }
    return send(url, {
      method: (init.method ?? 'GET').toUpperCase(),
      headers: Object.fromEntries(
        new HttpHeaders(init.headers as ConstructorParameters<typeof HttpHeaders>[0]),
      ),
      // Encoded once: its length and the write then read the same bytes instead of each encoding the text.
      body: typeof body === 'string' ? Buffer.from(body) : body,
      signal: init.signal ?? undefined,
      limits: options.limits,
    });
  };
}

/** `createHttpFetch` without time limits. */
export const httpFetch: typeof fetch = createHttpFetch();

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  signal: AbortSignal | undefined;
  limits: FetchLimits | undefined;
}

async function send(first: URL, outgoing: Outgoing): Promise<Response> {
  let url = first;
  let current = outgoing;
  // One limit for the headers of the final response, redirects included.
  const connectBy = outgoing.limits ? performance.now() + outgoing.limits.connectMs : undefined;
  for (let redirects = 0; ; redirects++) {
    const response = await exchange(url, current, connectBy);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined)
      return fetchResponse(responseHead(response, url, redirects > 0), bodyOf(response, current));
    response.resume();
    if (redirects === MAX_REDIRECTS)
      throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    const next = new URL(location, url);
    current = redirected(current, response.statusCode ?? 0, url.origin !== next.origin);
    url = next;
  }
}

/** The request a redirect asks for: a GET without body after a 303 (or a 301/302 of a POST), as `fetch` does. */
function redirected(outgoing: Outgoing, status: number, crossOrigin: boolean): Outgoing {
  const headers = { ...outgoing.headers };
  if (crossOrigin)
    for (const name of ['authorization', 'cookie', 'proxy-authorization']) delete headers[name];
  if (status === 303 || ((status === 301 || status === 302) && outgoing.method === 'POST')) {
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language'])
      delete headers[name];
    return { ...outgoing, headers, method: 'GET', body: undefined };
  }
  return { ...outgoing, headers };
}

/**
 * `node:http` and `node:https`, imported by the first request that needs them and kept: a dynamic import
 * goes through the module loader every time, on every turn's path (issue 17).
 */
let http: Promise<typeof import('node:http')> | undefined;
let https: Promise<typeof import('node:https')> | undefined;
const httpModule = () => {
  http ??= import('node:http');
  return http;
};
const httpsModule = () => {
  https ??= import('node:https');
  return https;
};

async function exchange(
  url: URL,
  { method, headers, body, signal, limits }: Outgoing,
  connectBy: number | undefined,
): Promise<IncomingMessage> {
  const canned = warmReplyFor(signal);
  const { request } = url.protocol === 'https:' && !canned ? await httpsModule() : await httpModule();
  // After the import: an abort while it loaded would otherwise find no listener and be lost.
  signal?.throwIfAborted();
  const sent: OutgoingHttpHeaders = { ...headers };
  if (body !== undefined) sent['content-length'] = body.byteLength;
  const options: RequestOptions = { method, headers: sent };
  // A warm-up's request goes on a connection of its own that never leaves the process (as plain HTTP).
  if (canned) options.createConnection = () => cannedConnection(canned);
  const target = canned ? new URL(`${url.pathname}${url.search}`, 'http://localhost') : url;
  return new Promise((resolve, reject) => {
    const req = request(target, options);
    const settle = () => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      settle();
      req.destroy();
      reject(signal?.reason);
    };
    const deadline =
      connectBy === undefined
        ? undefined
        : setTimeout(
            () => {
              settle();
              req.destroy();
              reject(ModelTimeoutError.connect(limits?.connectMs ?? 0));
            },
            Math.max(0, connectBy - performance.now()),
          );
    req.once('error', (error) => {
      settle();
      reject(new TypeError('fetch failed', { cause: error }));
    });
    req.once('response', (response) => {
      settle();
      resolve(response);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

/**
 * The connection a warm-up's request (src/provider/warm-reply.ts) is written to: it swallows the request
 * and answers with `body` as an HTTP/1.1 reply, so the reply passes Node's HTTP client and cadre's head and
 * body code as a real one does, their first use done before the first real answer comes.
 */
function cannedConnection(body: Buffer): Duplex {
  const head = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${body.byteLength}\r\n\r\n`;
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    // Once the request's writes of this tick are done, as a server's answer would come.
    setImmediate(() => {
      connection.push(Buffer.concat([Buffer.from(head), body]));
      connection.push(null);
    });
  };
  const connection = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      answer();
      done();
    },
    writev(_chunks, done) {
      answer();
      done();
    },
  });
  return connection;
}

function responseHead(response: IncomingMessage, url: URL, redirected: boolean): ResponseHead {
  const headers = new HttpHeaders();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return {
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    url: url.href,
    redirected,
    headers,
  };
}

/** Body chunks held before the socket is paused: an answer's small SSE chunks flow without a pause each. */
const BODY_QUEUE_CHUNKS = 16;

/**
 * The body as a web stream, read only as fast as it is consumed. A body cut short fails as undici's does
 * (`terminated`, the socket error as cause); an abort fails it with the abort's reason; with an idle limit,
 * a server that sends nothing for that long while the body is being read fails it with a ModelTimeoutError.
 */
function bodyOf(
  response: IncomingMessage,
  { method, signal, limits }: Outgoing,
): ReadableStream<Uint8Array> | null {
  if (method === 'HEAD' || NULL_BODY.has(response.statusCode ?? 0)) {
    response.resume();
    return null;
  }
  let settled = false;
  let failure: Error | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // Runs only while the body waits on the server, not while a full queue waits on the reader.
  let idle: NodeJS.Timeout | undefined;
  const stopIdle = () => {
    clearTimeout(idle);
    idle = undefined;
  };
  const finish = () => {
    settled = true;
    stopIdle();
    signal?.removeEventListener('abort', onAbort);
  };
  const fail = (error: unknown) => {
    if (settled) return;
    finish();
    controller.error(error);
  };
  const onAbort = () => {
    fail(signal?.reason);
    response.destroy();
  };
  const waitForServer = () => {
    if (!limits || settled) return;
    if (idle) idle.refresh();
    else
      idle = setTimeout(() => {
        fail(ModelTimeoutError.idle(limits.idleMs));
        response.destroy();
      }, limits.idleMs);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        response.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) > 0) return waitForServer();
          response.pause();
          stopIdle();
        });
        response.once('end', () => {
          if (settled) return;
          finish();
          controller.close();
        });
        response.once('error', (error) => {
          failure = error;
        });
        response.once('close', () => {
          const cause = failure ?? Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });
          fail(new TypeError('terminated', { cause }));
        });
        waitForServer();
      },
      pull() {
        if (response.isPaused()) {
          response.resume();
          waitForServer();
        }
      },
      cancel() {
        finish();
        response.destroy();
      },
    },
    new CountQueuingStrategy({ highWaterMark: BODY_QUEUE_CHUNKS }),
  );
  return decodingDirectly(body);
}

/**
 * The SDKs read a reply as `body.pipeThrough(new TextDecoderStream())`: a transform stream and a pipe
 * whose every chunk takes a round of promises, and whose end builds two errors with stack traces (the
 * decoder's terminate, the pipe's release), on every model call (issue 17). Piped through a plain UTF-8
 * `TextDecoderStream`, this body gives instead a stream of the same text decoded as it is read (the same
 * `TextDecoder` calls the transform makes: BOM dropped, bad bytes replaced, empty pieces skipped) and
 * failing or cancelled as the pipe would; any other transform is piped as usual.
 */
function decodingDirectly(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const pipeThrough = body.pipeThrough;
  return Object.defineProperty(body, 'pipeThrough', {
    configurable: true,
    writable: true,
    value(transform: ReadableWritablePair<unknown, Uint8Array>, options?: StreamPipeOptions) {
      const plainUtf8 =
        transform instanceof TextDecoderStream &&
        transform.encoding === 'utf-8' &&
        !transform.fatal &&
        !transform.ignoreBOM &&
        options === undefined &&
        !body.locked;
      return plainUtf8 ? decodedText(body) : pipeThrough.call(body, transform, options);
    },
  });
}

function decodedText(body: ReadableStream<Uint8Array>): ReadableStream<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return new ReadableStream<string>(
    {
      async pull(controller) {
        for (;;) {
          const read = await reader.read();
          if (read.done) {
            const rest = decoder.decode();
            if (rest) controller.enqueue(rest);
            return controller.close();
          }
          const text = decoder.decode(read.value, { stream: true });
          if (text) return controller.enqueue(text);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * A `Response` for the SDKs without undici's class: the head, the body stream and its readers. `timedFetch`
 * uses it to hand on a body it wraps.
 */
export function fetchResponse(head: ResponseHead, body: ReadableStream<Uint8Array> | null): Response {
  let used = false;
  const bytes = async (): Promise<Buffer> => {
    if (used) throw new TypeError('Body is unusable: Body has already been read');
    used = true;
    if (!body) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    const reader = body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return Buffer.concat(chunks);
  };
  const response = {
    ...head,
    ok: head.status >= 200 && head.status < 300,
    type: 'basic',
    body,
    get bodyUsed() {
      return used;
    },
    text: async () => (await bytes()).toString('utf8'),
    json: async () => JSON.parse((await bytes()).toString('utf8')),
    arrayBuffer: async () => {
      const data = await bytes();
      return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    },
    bytes: async () => new Uint8Array(await bytes()),
  };
  // The SDKs read only these members; the global class is what the type system knows.
  return response as unknown as Response;
}
