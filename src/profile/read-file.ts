import { readFileSync, statSync } from 'node:fs';

export const MAX_PROFILE_FILE_BYTES = 1024 * 1024;

export type ReadResult = { ok: true; text: string } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a profile/prompt/skill file, refusing oversized and binary files before any parsing. */
export function readTextFile(path: string): ReadResult {
  let bytes: Buffer;
  try {
    if (statSync(path).size > MAX_PROFILE_FILE_BYTES)
      return { ok: false, reason: 'file is larger than 1 MiB' };
    bytes = readFileSync(path);
  } catch (err) {
    return { ok: false, reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
  if (bytes.includes(0)) return { ok: false, reason: 'binary content (NUL bytes)' };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'binary content (not valid UTF-8)' };
  }
  if (text.trim() === '') return { ok: false, reason: 'empty file' };
  return { ok: true, text };
}
