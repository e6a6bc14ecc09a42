import { describe, expect, it } from 'vitest';
import { toToolResult } from '../../src/mcp/content.js';

describe('toToolResult', () => {
  it.each([
    [
      'joins text blocks with newlines',
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      'a\nb',
    ],
    [
      'describes an image by type and decoded size',
      { content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] },
      '[image: image/png, 3 bytes]',
    ],
    [
      'describes audio',
      { content: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAA=' }] },
      '[audio: audio/wav, 2 bytes]',
    ],
    [
      'describes a resource link',
      { content: [{ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' }] },
      '[resource link a.txt: file:///a.txt]',
    ],
    [
      'inlines an embedded text resource',
      { content: [{ type: 'resource', resource: { uri: 'mem://x', text: 'hello' } }] },
      '[resource mem://x]\nhello',
    ],
    [
      'describes an embedded binary resource',
      {
        content: [
          { type: 'resource', resource: { uri: 'mem://y', mimeType: 'application/zip', blob: 'AAAA' } },
        ],
      },
      '[resource mem://y: application/zip, 3 bytes]',
    ],
    ['names an unknown block type', { content: [{ type: 'hologram' }] }, '[hologram content]'],
    ['falls back to structured content', { content: [], structuredContent: { sum: 3 } }, '{\n  "sum": 3\n}'],
    ['reads a legacy toolResult', { toolResult: 'old style' }, 'old style'],
    ['says there was no output', { content: [] }, '(no output)'],
  ])('%s', (_name, result, output) => {
    expect(toToolResult(result)).toEqual({ output });
  });

  it('keeps isError and its message', () => {
    expect(toToolResult({ content: [{ type: 'text', text: 'bad input' }], isError: true })).toEqual({
      output: 'bad input',
      isError: true,
    });
  });

  it('gives an error without content a message', () => {
    expect(toToolResult({ isError: true })).toEqual({
      output: '(the tool failed without a message)',
      isError: true,
    });
  });
});
