import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, titleFrom } from '../../src/session/message-codec.js';

describe('message codec', () => {
  it('round-trips a message with a file part holding an ArrayBuffer as base64', () => {
    const data = new Uint8Array([1, 2, 3]).buffer;
    const message: ModelMessage = {
      role: 'user',
      content: [{ type: 'file', data, mediaType: 'application/octet-stream', filename: 'x.bin' }],
    };
    expect(decodeMessage(encodeMessage(message))).toEqual({
      role: 'user',
      content: [{ type: 'file', data: 'AQID', mediaType: 'application/octet-stream', filename: 'x.bin' }],
    });
  });

  it.each<[string, ModelMessage[], string | null]>([
    ['no messages', [], null],
    ['only a system message', [{ role: 'system', content: 'be brief' }], null],
    [
      'a user message of parts, skipping images',
      [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'image', image: 'aGk=' },
            { type: 'text', text: 'explain\tthis' },
          ],
        },
      ],
      'explain this',
    ],
    [
      'the first user message with text',
      [
        { role: 'user', content: '   ' },
        { role: 'user', content: 'second' },
      ],
      'second',
    ],
    [
      'a user message of exactly 80 characters, uncut',
      [{ role: 'user', content: 'a'.repeat(80) }],
      'a'.repeat(80),
    ],
  ])('titles %s', (_name, messages, title) => {
    expect(titleFrom(messages)).toBe(title);
  });
});
