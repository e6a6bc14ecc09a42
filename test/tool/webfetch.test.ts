import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolContext } from '../../src/tool/context.js';
import { createWebfetchTool } from '../../src/tool/webfetch.js';
import { run } from './fixture.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const routes: Record<string, Handler> = {
  '/page': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<html><body><h1>Title</h1><p>Some <a href="/x">link</a>.</p><script>evil()</script></body></html>',
    );
  },
  '/plain': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('just text');
  },
  '/json': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"a":1}');
  },
  '/binary': (_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png' });
    response.end(Buffer.from([0x89, 0x50, 0, 0]));
  },
  '/missing': (_request, response) => {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not here');
  },
  '/big': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('x'.repeat(5000));
  },
  '/hang': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('partial');
  },
  '/redirect-here': (_request, response) => {
    response.writeHead(302, { location: '/plain' });
    response.end();
  },
  '/redirect-away': (_request, response) => {
    response.writeHead(301, { location: 'http://elsewhere.invalid/page' });
    response.end();
  },
};

describe('webfetch', () => {
  let server: Server;
  let base: string;
  const ctx = createToolContext({ root: '/' });
  const limits = { maxBytes: 1000, maxChars: 100_000 };
  // A generous timeout for fetches that must succeed (a loaded CI machine took over 300 ms for one), a
  // short one only where the timeout is what is tested.
  const webfetch = createWebfetchTool({ timeoutMs: 10_000, ...limits });
  const impatientWebfetch = createWebfetchTool({ timeoutMs: 300, ...limits });

  beforeAll(async () => {
    server = createServer((request, response) =>
      (routes[request.url ?? ''] ?? routes['/missing'])(request, response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('converts HTML to markdown, dropping scripts', async () => {
    const result = await run(webfetch, { url: `${base}/page` }, ctx);
    expect(result).toEqual({
      output: `URL: ${base}/page\nStatus: 200\nContent-Type: text/html; charset=utf-8\n\n# Title\n\nSome [link](/x).`,
    });
  });

  it.each([
    ['/plain', 'text/plain', 'just text'],
    ['/json', 'application/json', '{"a":1}'],
  ])('returns %s as text', async (route, type, body) => {
    expect(await run(webfetch, { url: base + route }, ctx)).toEqual({
      output: `URL: ${base}${route}\nStatus: 200\nContent-Type: ${type}\n\n${body}`,
    });
  });

  it('follows a redirect on the same host', async () => {
    const result = await run(webfetch, { url: `${base}/redirect-here` }, ctx);
    expect(result.output).toBe(`URL: ${base}/plain\nStatus: 200\nContent-Type: text/plain\n\njust text`);
  });

  it('hands a redirect to another host back to the model instead of following it', async () => {
    expect(await run(webfetch, { url: `${base}/redirect-away` }, ctx)).toEqual({
      output: `${base}/redirect-away redirects to another host: http://elsewhere.invalid/page\nFetch that URL to follow it.`,
    });
  });

  it('cuts a large body at the byte limit with a note', async () => {
    const result = await run(webfetch, { url: `${base}/big` }, ctx);
    expect(result.output.endsWith(`\n\n${'x'.repeat(1000)}\n[body cut at 1000 bytes]`)).toBe(true);
  });

  it.each([
    ['/binary', /returned binary content \(image\/png\); not shown$/, webfetch],
    ['/missing', /^HTTP 404 Not Found\nURL: .*\/missing\nStatus: 404\n.*\n\nnot here$/s, webfetch],
    ['/hang', /^fetch of http:\/\/.*\/hang timed out after 0.3s$/, impatientWebfetch],
  ])('fails on %s', async (route, message, tool) => {
    const result = await run(tool, { url: base + route }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(message);
  });

  it('fails on a closed port with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await run(webfetch, { url: `http://127.0.0.1:${port}/` }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^fetch of .* failed: .*ECONNREFUSED/);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const fetching = run(
      createWebfetchTool(),
      { url: `${base}/hang` },
      { ...ctx, signal: controller.signal },
    );
    controller.abort();
    expect(await fetching).toEqual({ output: `fetch of ${base}/hang aborted`, isError: true });
  });

  it.each([
    [{}],
    [{ url: 'ftp://example.com/file' }],
    [{ url: 'file:///etc/passwd' }],
    [{ url: 'not a url' }],
  ])('schema refuses %j', (input) => {
    expect(webfetch.schema.safeParse(input).success).toBe(false);
  });

  it('has the URL as its subject and reads', () => {
    expect(webfetch.subject({ url: 'https://example.com/a' })).toEqual({
      kind: 'url',
      url: 'https://example.com/a',
    });
    expect(webfetch.safety).toBe('read');
  });
});
