import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/provider/http-fetch.js';

/** Issue 17: a reply body piped through a plain TextDecoderStream is decoded as it is read, with no pipe. */
let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** Resolves when the last server's reply was closed before it ended (the client went away). */
let hungUp: Promise<void> = Promise.resolve();

/** A server that writes `pieces` one by one (each its own chunk) and then ends or, with `cut`, resets. */
async function serving(pieces: Buffer[], cut = false): Promise<string> {
  let closed: () => void = () => {};
  hungUp = new Promise((resolve) => {
    closed = resolve;
  });
  server = createServer((_req, res) => {
    res.once('close', () => {
      if (!res.writableEnded) closed();
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let index = 0;
    const next = () => {
      if (index < pieces.length) {
        res.write(pieces[index++], () => setImmediate(next));
      } else if (cut) res.socket?.destroy();
      else res.end();
    };
    next();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** The reply's body as the SDKs read it. */
function decoded(response: Response, decoder = new TextDecoderStream()): ReadableStream<string> {
  return (response.body as ReadableStream<BufferSource>).pipeThrough(decoder);
}

async function texts(stream: ReadableStream<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const text of stream) out.push(text);
  return out;
}

/** What Node's own TextDecoderStream makes of the same pieces. */
function reference(pieces: Buffer[]): Promise<string[]> {
  const source = new ReadableStream<BufferSource>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(new Uint8Array(piece));
      controller.close();
    },
  });
  return texts(source.pipeThrough(new TextDecoderStream()));
}

describe('a reply body through TextDecoderStream', () => {
  const bytes = Buffer.from('\uFEFFdata: {"t":"é€😀"}\n\n', 'utf8');
  const cases: [string, Buffer[]][] = [
    ['whole', [bytes]],
    [
      'split inside a BOM and inside multi-byte characters',
      [0, 2, 16, 18, 20, 22, 23, 25, 26].map((at, i, all) => bytes.subarray(at, all[i + 1])),
    ],
    [
      'ending inside a character, with an invalid byte',
      [Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xe2, 0x82])],
    ],
  ];
  for (const [name, pieces] of cases) {
    it(`gives what TextDecoderStream gives: ${name}`, async () => {
      const response = await httpFetch(await serving(pieces), { method: 'POST', body: '{}' });
      const got = await texts(decoded(response));
      const want = await reference(pieces);
      expect(got.join('')).toBe(want.join(''));
      expect(got.every((text) => text !== '')).toBe(true);
    });
  }

  it('fails with the body’s error when the body is cut short, and cancels the body when cancelled', async () => {
    const cut = await httpFetch(await serving([Buffer.from('data: 1\n\n')], true), { method: 'POST' });
    const reader = decoded(cut).getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'data: 1\n\n' });
    await expect(reader.read()).rejects.toThrow('terminated');
    server?.close();
    const endless = Array.from({ length: 10_000 }, () => Buffer.from('data: more\n\n'));
    const long = await httpFetch(await serving(endless), { method: 'POST' });
    const first = decoded(long).getReader();
    expect((await first.read()).value).toContain('data: more');
    await first.cancel(new Error('enough'));
    await hungUp;
  });

  it('pipes any other transform as usual', async () => {
    const response = await httpFetch(await serving([Buffer.from('abc')]), { method: 'POST' });
    const upper = new TransformStream<Uint8Array, string>({
      transform: (chunk, controller) => controller.enqueue(Buffer.from(chunk).toString().toUpperCase()),
    });
    const piped = (response.body as ReadableStream<Uint8Array>).pipeThrough(upper);
    expect((await texts(piped)).join('')).toBe('ABC');
    const latin = await httpFetch(await serving([Buffer.from([0xe9])]), { method: 'POST' });
    expect((await texts(decoded(latin, new TextDecoderStream('latin1')))).join('')).toBe('é');
  });
});
