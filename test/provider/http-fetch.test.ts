import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError } from '@ai-sdk/provider';
import {
  createEventSourceResponseHandler,
  createJsonErrorResponseHandler,
  postJsonToApi,
} from '@ai-sdk/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpFetch, httpFetch, ModelTimeoutError } from '../../src/provider/http-fetch.js';
import { classifyModelError } from '../../src/provider/retry.js';
import { timedFetch } from '../../src/provider/timed-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server whose routes the tests define; it records every request it saw. */
async function startServer(
  routes: Record<string, Route>,
): Promise<{ server: Server; base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const route = routes[(req.url ?? '').split('?')[0]];
      if (route) route(req, res, body);
      else res.writeHead(404, 'Nowhere').end('no such route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

let base = '';
let seen: Seen[] = [];
let server: Server;
/** Writes of the endless route, so a test knows the stream is open before it aborts. */
let endlessStarted: () => void = () => {};

beforeAll(async () => {
  ({ server, base, seen } = await startServer({
    '/echo': (req, res, body) =>
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-Mixed-Case': 'yes' })
        .end(JSON.stringify({ method: req.method, body })),
    '/sse': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      setTimeout(() => res.end('data: {"n":2}\n\n'), 10);
    },
    '/cut': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
      res.write('data: {"n":1}\n\n', () => res.socket?.destroy());
    },
    '/endless': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n', () => endlessStarted());
    },
    '/empty': (_req, res) => res.writeHead(204).end(),
    // Never answers: only a client-side limit ends the request.
    '/silent': () => {},
    '/see-other': (_req, res) => res.writeHead(303, { location: '/echo' }).end(),
    '/temporary': (_req, res) => res.writeHead(307, { location: `${base}/echo` }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/failing': (_req, res) =>
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
        .end('{"error":"slow down"}'),
  }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('httpFetch', () => {
  it('sends the method, headers and body and reads the answer as fetch does', async () => {
    const response = await httpFetch(`${base}/echo`, {
      method: 'post',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer k' },
      body: '{"é":1}',
    });
    expect(response).toMatchObject({ ok: true, status: 200, statusText: 'OK', redirected: false });
    expect(response.headers.get('X-MIXED-CASE')).toBe('yes');
    expect(await response.json()).toEqual({ method: 'POST', body: '{"é":1}' });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(/already been read/);
    const request = seen.at(-1);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer k',
      'content-length': String(Buffer.byteLength('{"é":1}')),
    });
    expect(request?.headers['accept-encoding']).toBeUndefined();
  });

  it('streams the body chunk by chunk', async () => {
    const response = await httpFetch(`${base}/sse`);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    expect(first.value).toBe('data: {"n":1}\n\n');
    let rest = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += read.value;
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it.each<[string, string, { status: number; body: unknown; method: string; redirected: boolean }]>([
    [
      'a 303 turns a POST into a GET without body',
      '/see-other',
      { status: 200, body: { method: 'GET', body: '' }, method: 'GET', redirected: true },
    ],
    [
      'a 307 sends the same POST again',
      '/temporary',
      { status: 200, body: { method: 'POST', body: 'payload' }, method: 'POST', redirected: true },
    ],
    [
      'a 404 is an answer, not an error',
      '/nowhere',
      { status: 404, body: 'no such route', method: 'POST', redirected: false },
    ],
  ])('%s', async (_name, path, expected) => {
    const response = await httpFetch(`${base}${path}`, { method: 'POST', body: 'payload' });
    expect(response.status).toBe(expected.status);
    expect(response.redirected).toBe(expected.redirected);
    const text = await response.text();
    expect(typeof expected.body === 'string' ? text : JSON.parse(text)).toEqual(expected.body);
    expect(seen.at(-1)?.method).toBe(expected.method);
  });

  it('has no body for a 204', async () => {
    const response = await httpFetch(`${base}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('gives up after twenty redirects as fetch does', async () => {
    const error = await httpFetch(`${base}/loop`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
  });

  it('fails an unreachable server as undici does, retryable for cadre', async () => {
    const closed = await startServer({});
    await new Promise((resolve) => closed.server.close(resolve));
    const error = await httpFetch(`${closed.base}/echo`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(classifyModelError(error)).toMatchObject({ retryable: true, cause: 'ECONNREFUSED' });
  });

  it('fails a body cut short with "terminated" and the socket error as cause', async () => {
    const response = await httpFetch(`${base}/cut`);
    const error = await response.text().catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'terminated' });
    expect(classifyModelError(error).retryable).toBe(true);
  });

  it('rejects with the abort reason, before the request and while the body streams', async () => {
    const before = new AbortController();
    before.abort(new Error('cancelled early'));
    await expect(httpFetch(`${base}/echo`, { signal: before.signal })).rejects.toThrow('cancelled early');

    const during = new AbortController();
    const started = new Promise<void>((resolve) => {
      endlessStarted = resolve;
    });
    const response = await httpFetch(`${base}/endless`, { signal: during.signal });
    const reader = response.body!.getReader();
    await reader.read();
    await started;
    const pending = reader.read();
    during.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
  });

  it('rejects with the abort reason when aborted while the request is being set up', async () => {
    const controller = new AbortController();
    const pending = httpFetch(`${base}/echo`, { signal: controller.signal });
    controller.abort(new Error('cancelled at once'));
    await expect(pending).rejects.toThrow('cancelled at once');
  });

  it('hands what it does not handle itself to the global fetch', async () => {
    const response = await httpFetch('data:text/plain,hello');
    expect(await response.text()).toBe('hello');
  });
});

describe('httpFetch with time limits', () => {
  it('gives up on a server that sends no response headers within the connect limit, retryable', async () => {
    const limited = createHttpFetch({ limits: { connectMs: 50, idleMs: 10_000 } });
    const error = await limited(`${base}/silent`, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as Error).message).toBe('no response from the model server within 50 ms');
    expect(classifyModelError(error)).toMatchObject({ retryable: true, cause: 'ETIMEDOUT' });
  });

  it('fails a body that goes silent for the idle limit, after the chunks it did send', async () => {
    const limited = createHttpFetch({ limits: { connectMs: 10_000, idleMs: 50 } });
    const response = await limited(`${base}/endless`);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: {"n":1}\n\n');
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as Error).message).toBe('the model stream sent nothing for 50 ms');
  });

  it('does not count the time a reader takes between chunks', async () => {
    const limited = createHttpFetch({ limits: { connectMs: 10_000, idleMs: 30 } });
    const response = await limited(`${base}/sse`);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: {"n":1}\n\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    let rest = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += read.value;
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it('is what timedFetch uses without a base fetch', async () => {
    const error = await timedFetch({ connectMs: 50, idleMs: 10_000 })(`${base}/silent`).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ModelTimeoutError);
  });
});

describe('httpFetch under the AI SDK', () => {
  const errorSchema = z.object({ error: z.string() });
  const post = (path: string, fetch: typeof httpFetch) =>
    postJsonToApi({
      url: `${base}${path}`,
      headers: { authorization: 'Bearer k' },
      body: { hello: 'world' },
      failedResponseHandler: createJsonErrorResponseHandler({
        errorSchema,
        errorToMessage: (data) => data.error,
      }),
      successfulResponseHandler: createEventSourceResponseHandler(z.object({ n: z.number() })),
      fetch,
    });

  it('streams server-sent events the SDK parses', async () => {
    const { value } = await post('/sse', httpFetch);
    const events: unknown[] = [];
    for await (const event of value) events.push(event);
    expect(events).toEqual([
      expect.objectContaining({ success: true, value: { n: 1 } }),
      expect.objectContaining({ success: true, value: { n: 2 } }),
    ]);
    expect(seen.at(-1)?.headers['user-agent']).toMatch(/ai-sdk\/provider-utils/);
  });

  it('reports an HTTP error with its status, headers and body', async () => {
    const error = await post('/failing', httpFetch).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      statusCode: 429,
      message: 'slow down',
      responseHeaders: expect.objectContaining({ 'retry-after': '2' }),
    });
    expect(classifyModelError(error)).toMatchObject({ retryable: true, retryAfterMs: 2000 });
  });

  it('reports an unreachable server as the SDK does for fetch', async () => {
    const closed = await startServer({});
    await new Promise((resolve) => closed.server.close(resolve));
    const error = await postJsonToApi({
      url: `${closed.base}/sse`,
      body: {},
      failedResponseHandler: createJsonErrorResponseHandler({ errorSchema, errorToMessage: (d) => d.error }),
      successfulResponseHandler: createEventSourceResponseHandler(z.object({})),
      fetch: httpFetch,
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      isRetryable: true,
      message: expect.stringMatching(/^Cannot connect to API: .*ECONNREFUSED/),
    });
  });
});
