import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { forEachLine } from '../../src/tool/file-lines.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cadre-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function fileWith(bytes: Uint8Array | string): string {
  const file = path.join(dir, `f${files++}`);
  writeFileSync(file, bytes);
  return file;
}

/** What the read tool did before: a utf8 read stream through readline with crlfDelay Infinity. */
async function readlineLines(file: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  }))
    lines.push(line);
  return lines;
}

async function chunkedLines(file: string, chunkBytes: number, headBytes: number, stopAfter = Infinity) {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(headBytes);
    const { bytesRead } = await handle.read(head, 0, headBytes, 0);
    const lines: string[] = [];
    await forEachLine(
      handle,
      head.subarray(0, bytesRead),
      (line) => {
        lines.push(line);
        return lines.length < stopAfter;
      },
      chunkBytes,
    );
    return lines;
  } finally {
    await handle.close();
  }
}

/** Random text over the characters that matter: line endings, multi-byte UTF-8, invalid bytes. */
function randomBytes(seed: number, length: number): Buffer {
  const pieces = [
    'a',
    'bc',
    '\n',
    '\r',
    '\r\n',
    '\n\r',
    'é',
    '€',
    '😀',
    ' ',
    '\t',
    Buffer.from([0xe2, 0x82]),
    Buffer.from([0xff]),
  ];
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state;
  };
  const out: Buffer[] = [];
  for (let i = 0; i < length; i++) {
    const piece = pieces[next() % pieces.length];
    out.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
  }
  return Buffer.concat(out);
}

describe('forEachLine', () => {
  it.each([
    ['no trailing newline', 'a\nb'],
    ['trailing newline', 'a\nb\n'],
    ['CRLF', 'one\r\ntwo\r\n'],
    ['lone CR', 'one\rtwo\r'],
    ['LF then CR', 'a\n\rb'],
    ['blank lines', '\n\n\nx\n\n'],
    ['only a newline', '\n'],
    ['only CRLF', '\r\n'],
    ['multi-byte', 'é€😀\n😀'],
  ])('splits %s as readline does', async (_label, text) => {
    const file = fileWith(text);
    const expected = await readlineLines(file);
    for (const chunk of [1, 2, 3, 64 * 1024])
      for (const head of [1, 2, 8000]) expect(await chunkedLines(file, chunk, head)).toEqual(expected);
  });

  it('agrees with readline on random text at every chunk size, across chunk boundaries', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const file = fileWith(randomBytes(seed, 1 + ((seed * 7) % 200)));
      const expected = await readlineLines(file);
      for (const chunk of [1, 3, 16, 4096])
        expect(await chunkedLines(file, chunk, 1 + (seed % 7)), `seed ${seed}, chunk ${chunk}`).toEqual(
          expected,
        );
    }
  });

  it('stops reading when the callback says so', async () => {
    const file = fileWith('1\n2\n3\n4\n');
    expect(await chunkedLines(file, 2, 2, 2)).toEqual(['1', '2']);
  });
});
