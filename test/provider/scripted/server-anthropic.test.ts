import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, type ToolSet, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../../support/llm-server.js';

function modelOf(server: ScriptedServer) {
  return createAnthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'test-key' })('claude-scripted');
}

const tools = {
  read: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }) => `contents of ${path}`,
  }),
} satisfies ToolSet;

/** An explicit output cap keeps the SDK quiet about the unknown model name. */
const common = { maxOutputTokens: 1000, maxRetries: 0 } as const;

describe('scripted server through the Anthropic SDK', () => {
  it('streams thinking and text, then the usage', async () => {
    const text = 'Here is a streamed answer with quite a few words in it.';
    const server = await scriptedServer(
      script().turn((t) => t.reasoning('Let me think about it.').text(text)),
    );
    const result = streamText({ model: modelOf(server), prompt: 'hello', ...common });
    expect(await result.text).toBe(text);
    expect(await result.reasoningText).toBe('Let me think about it.');
    expect(await result.usage).toMatchObject({
      inputTokens: 2,
      outputTokens: Math.ceil((22 + text.length) / 4),
    });
    expect(await result.finishReason).toBe('stop');
  });

  it('walks a streamed tool loop, with results arriving as tool_result blocks', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'researcher' })
        .turn((t) => t.tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }))
        .turn((t) => t.text('Read both.')),
    );
    const result = streamText({
      model: modelOf(server),
      system: 'You are the researcher.',
      prompt: 'read a.txt and b.txt',
      tools,
      stopWhen: stepCountIs(4),
      ...common,
    });
    expect(await result.text).toBe('Read both.');
    const steps = await result.steps;
    expect(steps[0].toolCalls.map((c) => c.input)).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }]);
    expect(server.requests.map((r) => r.answeredBy.turn)).toEqual([0, 1]);
    expect(server.requests[1].view.messages.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual([
      'contents of a.txt',
      'contents of b.txt',
    ]);
  });

  it('answers non-streaming requests with tool_use blocks', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.text('Looking.').tool('read', { path: 'c.txt' }))
        .text('done'),
    );
    const result = await generateText({
      model: modelOf(server),
      prompt: 'go',
      tools,
      stopWhen: stepCountIs(3),
      ...common,
    });
    expect(result.text).toBe('done');
    expect(result.steps[0].text).toBe('Looking.');
    expect(result.steps[0].toolResults.map((r) => r.output)).toEqual(['contents of c.txt']);
  });

  it('streams malformed tool input as is', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.rawTool('read', '{"path": '))
        .text('oops'),
    );
    const result = streamText({
      model: modelOf(server),
      prompt: 'go',
      tools,
      stopWhen: stepCountIs(2),
      ...common,
    });
    const steps = await result.steps;
    expect(steps[0].content.find((p) => p.type === 'tool-error')).toMatchObject({ input: '{"path": ' });
    expect(server.requests[1].view.messages.at(-1)).toMatchObject({ role: 'tool' });
  });

  it('returns an overloaded error with retry-after, then succeeds on the retry', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.error(529, 'Overloaded', { retry_after: 0.2, times: 1 }).text('back again')),
    );
    const result = await generateText({ model: modelOf(server), prompt: 'go', ...common, maxRetries: 1 });
    expect(result.text).toBe('back again');
    const [first, second] = server.requests;
    expect(second.startedAt - (first.endedAt ?? first.startedAt)).toBeGreaterThanOrEqual(180);
  });

  it('names the Anthropic error type in the failure', async () => {
    const server = await scriptedServer(script().turn((t) => t.error(401, 'invalid x-api-key')));
    await expect(generateText({ model: modelOf(server), prompt: 'go', ...common })).rejects.toThrow(
      'invalid x-api-key',
    );
  });

  it('drops the stream after partial output', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.reset().text('alpha beta gamma delta epsilon zeta eta theta')),
    );
    const result = streamText({ model: modelOf(server), prompt: 'go', ...common });
    let partial = '';
    const consume = async () => {
      for await (const part of result.fullStream) if (part.type === 'text-delta') partial += part.text;
    };
    await expect(consume()).rejects.toThrow();
    expect(partial).toBe('alpha beta gamma delta ');
  });

  it('records the Anthropic headers and the thinking parameters', async () => {
    const server = await scriptedServer(script().text('ok'));
    await generateText({
      model: modelOf(server),
      system: 'You are cadre.',
      prompt: 'hello',
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
      ...common,
      maxOutputTokens: 4000,
    });
    const [request] = server.requests;
    expect(request).toMatchObject({ wire: 'anthropic', path: '/v1/messages' });
    expect(request.headers['x-api-key']).toBe('test-key');
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.view).toMatchObject({
      model: 'claude-scripted',
      system: 'You are cadre.',
      reasoning: { thinking: 'enabled', budgetTokens: 2048 },
    });
  });
});
