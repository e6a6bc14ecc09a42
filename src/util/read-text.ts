import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** Default cap for files cadre reads itself (config, profiles, prompts, skills, instructions). */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;

export type TextRead = { ok: true; text: string } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function describeSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * Reads a UTF-8 text file only when it is a regular file within `maxBytes`. The open is non-blocking
 * and the type is checked on the opened descriptor, so a FIFO, a device behind a symlink or a
 * directory is refused without hanging, and nothing past the limit is ever read. A leading byte-order
 * mark is dropped. `reason` never contains the path: callers name it in their own message format.
 */
export function readRegularTextFile(path: string, maxBytes = MAX_TEXT_FILE_BYTES): TextRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { ok: false, reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: `${kindOf(stats)}, not a regular file` };
    if (stats.size > maxBytes) return { ok: false, reason: `file is larger than ${describeSize(maxBytes)}` };
    // One byte more than allowed tells a file that grew after fstat from one that fits.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) return { ok: false, reason: `file is larger than ${describeSize(maxBytes)}` };
    const bytes = buffer.subarray(0, length);
    if (bytes.includes(0)) return { ok: false, reason: 'binary content (NUL bytes)' };
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return { ok: false, reason: 'binary content (not valid UTF-8)' };
    }
    return { ok: true, text: text.replace(/^\uFEFF/, '') };
  } catch (err) {
    return { ok: false, reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  } finally {
    closeSync(fd);
  }
}
