import { StringDecoder } from 'node:string_decoder';

/** Where lines are read from: a FileHandle, or a file already read whole (read.ts). */
export interface ChunkSource {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** Bytes read per call, as a file read stream does. */
export const LINE_CHUNK_BYTES = 64 * 1024;

/** `\n`, `\r\n` and a lone `\r` each end a line, as `readline` splits with `crlfDelay: Infinity`. */
const LINE_END = /\r\n|\n|\r/g;

/**
 * Calls `onLine` with each line of the file from its start, without its line ending, until the file ends or
 * `onLine` returns false. `first` is the file's opening bytes when already read (the binary sniff); with
 * no `handle` it is the whole file. One descriptor and one read per chunk instead of a read stream and
 * `readline` (issue 17: a small file's read took a dozen thread-pool round trips).
 */
export async function forEachLine(
  handle: ChunkSource | null,
  first: Uint8Array,
  onLine: (line: string) => boolean,
  chunkBytes = LINE_CHUNK_BYTES,
): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let position = first.length;
  let chunk: Uint8Array = first;
  // Made at the first read, unzeroed: only the bytes read into it are looked at (issue 17: a zeroed 64 KiB
  // buffer per call cost more than reading a small file).
  let buffer: Buffer | undefined;
  for (;;) {
    const atEnd = chunk.length === 0;
    let text = rest + (atEnd ? decoder.end() : decoder.write(chunk));
    // A final `\r` may be the first half of a `\r\n` the next chunk completes.
    const held = !atEnd && text.endsWith('\r');
    if (held) text = text.slice(0, -1);
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(text); match !== null; match = LINE_END.exec(text)) {
      if (!onLine(text.slice(start, match.index))) return;
      start = LINE_END.lastIndex;
    }
    rest = text.slice(start) + (held ? '\r' : '');
    if (atEnd) {
      if (rest !== '') onLine(rest);
      return;
    }
    if (!handle) {
      chunk = new Uint8Array(0);
      continue;
    }
    buffer ??= Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    position += bytesRead;
    chunk = buffer.subarray(0, bytesRead);
  }
}
