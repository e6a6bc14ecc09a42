import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { toProviderPrompt, usageOf } from '../../src/agent/provider-prompt.js';

describe('toProviderPrompt', () => {
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
