/**
 * A reply split for streaming: `head` opens the response, `content` carries the model output and `tail`
 * closes it. A scripted reset sends the head and part of the content, never the tail.
 */
export interface Frames {
  head: string[];
  content: string[];
  tail: string[];
}

/** Identity of one reply, shared by all of its chunks. */
export interface ReplyContext {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

const WORDS_PER_CHUNK = 4;

/** Splits text into a few word-aligned pieces so clients really see a stream. */
export function splitForStreaming(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g);
  if (!words) return text.length > 0 ? [text] : [];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_CHUNK)
    pieces.push(words.slice(i, i + WORDS_PER_CHUNK).join(''));
  return pieces;
}

const ARGUMENT_CHUNK_CHARS = 24;

/** Tool arguments arrive in fragments on real wires; so do ours (JSON need not split on boundaries). */
export function splitArguments(args: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < args.length; i += ARGUMENT_CHUNK_CHARS)
    pieces.push(args.slice(i, i + ARGUMENT_CHUNK_CHARS));
  return pieces;
}

export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export function sseEvent(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The error `type` both providers use for a status, when the script does not name one. */
export function errorTypeFor(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}
