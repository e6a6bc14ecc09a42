import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { toProviderPrompt, usageOf } from '../../src/agent/provider-prompt.js';

describe('toProviderPrompt', () => {
  it('converts a grown history the same as a fresh one, and merging never changes an earlier prompt', () => {
    const result = (id: string, value: string): ModelMessage => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: { type: 'text', value } }],
    });
    const history: ModelMessage[] = [{ role: 'user', content: 'hi' }, result('c1', 'A')];
    const first = toProviderPrompt('sys', history);
    const firstJson = JSON.stringify(first);
    const grown = [...history, result('c2', 'B'), { role: 'assistant' as const, content: 'done' }];
    const again = toProviderPrompt('sys', grown);
    // Fresh copies of the same messages convert identically, whatever the cache holds.
    expect(JSON.stringify(again)).toBe(JSON.stringify(toProviderPrompt('sys', structuredClone(grown))));
    expect(again[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'A' } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'text', value: 'B' } },
      ],
    });
    expect(JSON.stringify(first)).toBe(firstJson);
    expect(JSON.stringify(toProviderPrompt('sys', history))).toBe(firstJson);
  });

  it('puts the system text first, turns strings into text parts and merges consecutive tool messages', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 's' } } },
          { type: 'text', text: '' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: { pattern: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'A' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'grep',
            output: { type: 'error-text', value: 'E' },
          },
        ],
      },
      { role: 'assistant', content: 'done' },
    ];
    expect(JSON.parse(JSON.stringify(toProviderPrompt('sys', messages)))).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think', providerOptions: { anthropic: { signature: 's' } } },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: { pattern: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'A' } },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'grep',
            output: { type: 'error-text', value: 'E' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('reads the provider usage report', () => {
    expect(
      usageOf({
        inputTokens: { total: 10, noCache: 4, cacheRead: 6, cacheWrite: undefined },
        outputTokens: { total: 5, text: 3, reasoning: 2 },
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      inputTokenDetails: { cacheReadTokens: 6 },
      outputTokenDetails: { reasoningTokens: 2 },
    });
  });
});
