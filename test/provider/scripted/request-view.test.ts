import { describe, expect, it } from 'vitest';
import { viewAnthropicRequest, viewOpenAIRequest } from '../../../src/provider/scripted/request-view.js';

describe('viewOpenAIRequest', () => {
  it('reduces a chat completions body to system, messages, tools and parameters', () => {
    const view = viewOpenAIRequest({
      model: 'gpt-x',
      stream: true,
      temperature: 0.2,
      max_completion_tokens: 512,
      reasoning_effort: 'high',
      messages: [
        { role: 'system', content: 'You are cadre.' },
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        {
          role: 'user',
          content: [{ type: 'text', text: 'read ' }, { type: 'image_url' }, { type: 'text', text: 'a.txt' }],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
      ],
      tools: [
        { type: 'function', function: { name: 'read' } },
        { type: 'function', function: { name: 'bash' } },
      ],
    });
    expect(view).toEqual({
      model: 'gpt-x',
      system: 'You are cadre.\n\nBe brief.',
      messages: [
        { role: 'user', text: 'read a.txt' },
        {
          role: 'assistant',
          text: '',
          toolCalls: [{ id: 'call_1', name: 'read', arguments: '{"path":"a.txt"}' }],
        },
        { role: 'tool', text: 'hello', toolCallId: 'call_1' },
      ],
      tools: ['read', 'bash'],
      stream: true,
      temperature: 0.2,
      maxTokens: 512,
      reasoning: { effort: 'high' },
    });
  });

  it('leaves reasoning undefined when the request sets none, and survives a non-object body', () => {
    expect(viewOpenAIRequest({ model: 'm', messages: [] }).reasoning).toBeUndefined();
    expect(viewOpenAIRequest('nonsense')).toMatchObject({ model: '', system: '', messages: [], tools: [] });
  });
});

describe('viewAnthropicRequest', () => {
  it('turns tool_result blocks into tool messages in block order', () => {
    const view = viewAnthropicRequest({
      model: 'claude-x',
      max_tokens: 1024,
      system: [
        { type: 'text', text: 'You are cadre.' },
        { type: 'text', text: 'Be brief.' },
      ],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { effort: 'low' },
      messages: [
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hello' }] },
            { type: 'text', text: 'now b.txt' },
          ],
        },
      ],
      tools: [{ name: 'read', input_schema: {} }],
    });
    expect(view).toEqual({
      model: 'claude-x',
      system: 'You are cadre.\n\nBe brief.',
      messages: [
        { role: 'user', text: 'read a.txt' },
        {
          role: 'assistant',
          text: 'Reading.',
          toolCalls: [{ id: 'toolu_1', name: 'read', arguments: '{"path":"a.txt"}' }],
        },
        { role: 'tool', text: 'hello', toolCallId: 'toolu_1' },
        { role: 'user', text: 'now b.txt' },
      ],
      tools: ['read'],
      stream: false,
      temperature: undefined,
      maxTokens: 1024,
      reasoning: { effort: 'low', thinking: 'enabled', budgetTokens: 2048 },
    });
  });

  it('accepts a plain string system prompt and string tool results', () => {
    const view = viewAnthropicRequest({
      system: 'sys',
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'plain' }] }],
    });
    expect(view.system).toBe('sys');
    expect(view.messages).toEqual([{ role: 'tool', text: 'plain', toolCallId: 't' }]);
  });
});
