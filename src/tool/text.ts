/** Bytes sniffed to decide whether a file is binary, as git does. */
const SNIFF_BYTES = 8000;

/** A NUL byte, or mostly control characters, in the first block means binary (git's heuristic, widened). */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SNIFF_BYTES);
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27) control++;
  }
  return control / sample.length > 0.3;
}

/** Keeps the head and tail of a long text with a note in between, so both the start and the end survive. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n[... ${omitted} characters omitted ...]\n${text.slice(text.length - half)}`;
}

/** Splits file text into lines, remembering the line ending so edits write back the same style. */
export function splitLines(text: string): { lines: string[]; eol: '\n' | '\r\n'; trailingNewline: boolean } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const trailingNewline = text.endsWith('\n');
  const body = trailingNewline ? text.slice(0, text.length - (text.endsWith('\r\n') ? 2 : 1)) : text;
  const lines = text.length === 0 ? [] : body.split(/\r?\n/);
  return { lines, eol, trailingNewline };
}

export function joinLines(lines: string[], eol: string, trailingNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join(eol) + (trailingNewline ? eol : '');
}
