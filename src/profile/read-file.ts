import { readRegularTextFile, type TextRead } from '../util/read-text.js';

export type ReadResult = TextRead;

/** Reads a profile/prompt/skill file: regular, at most 1 MiB, UTF-8 text, not empty. */
export function readTextFile(path: string): ReadResult {
  const read = readRegularTextFile(path);
  if (read.ok && read.text.trim() === '') return { ok: false, reason: 'empty file' };
  return read;
}
