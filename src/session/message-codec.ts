import type { ModelMessage } from 'ai';

const TITLE_MAX_CHARS = 80;

/**
 * ModelMessage as JSON. Binary image/file data (Uint8Array, Buffer, ArrayBuffer) becomes a base64
 * string and a URL its href: both are accepted back by the `ai` SDK as the same content, so a
 * restored conversation replays as it was sent.
 */
export function encodeMessage(message: ModelMessage): string {
  return JSON.stringify(message, function binaryAsBase64(this: unknown, key: string, value: unknown) {
    // The holder's own value, before Buffer.prototype.toJSON turned it into {type, data}.
    const original = (this as Record<string, unknown>)[key];
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    if (original instanceof ArrayBuffer) return Buffer.from(original).toString('base64');
    return value;
  });
}

export function decodeMessage(json: string): ModelMessage {
  return JSON.parse(json) as ModelMessage;
}

function userText(message: ModelMessage): string {
  if (message.role !== 'user') return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')
    .trim();
}

/** The session title: the first user message's text on one line, cut to TITLE_MAX_CHARS. */
export function titleFrom(messages: readonly ModelMessage[]): string | null {
  for (const message of messages) {
    const text = userText(message).replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    return text.length > TITLE_MAX_CHARS ? `${text.slice(0, TITLE_MAX_CHARS - 1)}…` : text;
  }
  return null;
}
