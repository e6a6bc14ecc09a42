import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
} from 'ai';
import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../../support/llm-server.js';

/** The real OpenAI-compatible SDK pointed at the scripted server: what the `scripted` provider type does. */
function modelOf(server: ScriptedServer, modelId = 'scripted-model') {
  return createOpenAICompatible({
    name: 'scripted',
    baseURL: server.openaiBaseUrl,
    apiKey: 'test-key',
    headers: { 'x-cadre-test': 'yes' },
    includeUsage: true,
  })(modelId);
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

async function collect<T extends ToolSet>(
  stream: AsyncIterable<TextStreamPart<T>>,
): Promise<TextStreamPart<T>[]> {
  const parts: TextStreamPart<T>[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('scripted server through the OpenAI-compatible SDK', () => {
  it('streams text in several deltas and reports the estimated usage', async () => {
    const text = 'The quick brown fox jumps over the lazy dog and keeps on running far away.';
    const server = await scriptedServer(script().text(text));
    const result = streamText({ model: modelOf(server), prompt: 'tell me a story', maxRetries: 0 });
    const parts = await collect(result.fullStream);
    const deltas = parts.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.text).toBe(text);
    expect(await result.usage).toMatchObject({ inputTokens: 4, outputTokens: Math.ceil(text.length / 4) });
    expect(await result.finishReason).toBe('stop');
  });

  it('walks a tool loop through the turns as tool results come back', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'reviewer' }, 'reviewer')
        .turn((t) => t.reasoning('I should look.').text('Reading.').tool('read', { path: 'a.txt' }))
        .turn((t) => t.tool('read', { path: 'b.txt' }))
        .turn((t) => t.text('Both files look fine.')),
    );
    const result = streamText({
      model: modelOf(server),
      system: 'You are the reviewer.',
      prompt: 'review a.txt and b.txt',
      tools,
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    expect(await result.text).toBe('Both files look fine.');
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop']);
    expect(steps[0].reasoningText).toBe('I should look.');
    expect(steps[0].toolResults.map((r) => r.output)).toEqual(['contents of a.txt']);
    expect(server.requests.map((r) => [r.answeredBy.ruleName, r.answeredBy.turn])).toEqual([
      ['reviewer', 0],
      ['reviewer', 1],
      ['reviewer', 2],
    ]);
    const last = server.requests[2].view.messages;
    expect(last.filter((m) => m.role === 'tool').map((m) => m.text)).toEqual([
      'contents of a.txt',
      'contents of b.txt',
    ]);
    const ids = last.flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('answers non-streaming requests with text, reasoning and tool calls', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.reasoning('plan').tool('read', { path: 'c.txt' }))
        .text('done'),
    );
    const result = await generateText({
      model: modelOf(server),
      prompt: 'go',
      tools,
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(result.text).toBe('done');
    expect(result.steps[0].reasoningText).toBe('plan');
    expect(result.steps[0].toolCalls.map((c) => c.input)).toEqual([{ path: 'c.txt' }]);
    expect(server.requests.every((r) => !r.view.stream)).toBe(true);
  });

  it('hands malformed tool arguments to the SDK unrepaired', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.rawTool('read', '{"path": "a.txt'))
        .text('I will fix my call.'),
    );
    const result = streamText({
      model: modelOf(server),
      prompt: 'go',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    const parts = await collect(result.fullStream);
    const call = parts.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({ input: '{"path": "a.txt', invalid: true });
    expect(parts.find((p) => p.type === 'tool-error')).toMatchObject({ toolName: 'read' });
    expect(await result.text).toBe('I will fix my call.');
  });

  it('fails with 429 once, then answers; the SDK waits the retry-after, not its own backoff', async () => {
    const server = await scriptedServer(
      script().turn((t) =>
        t.error(429, 'Rate limit reached', { retry_after: 0.3, times: 1 }).text('after the wait'),
      ),
    );
    const result = await generateText({ model: modelOf(server), prompt: 'go', maxRetries: 2 });
    expect(result.text).toBe('after the wait');
    const [first, second] = server.requests;
    expect(server.requests.map((r) => [r.answeredBy.attempt, r.answeredBy.outcome])).toEqual([
      [0, 'error'],
      [1, 'answer'],
    ]);
    const waited = second.startedAt - (first.endedAt ?? first.startedAt);
    expect(waited).toBeGreaterThanOrEqual(280);
    // The SDK's own first backoff is 2 s; a shorter wait proves it read the header.
    expect(waited).toBeLessThan(1900);
  });

  it('surfaces a permanent error with the provider message after the retries', async () => {
    const server = await scriptedServer(script().turn((t) => t.error(500, 'upstream exploded')));
    await expect(generateText({ model: modelOf(server), prompt: 'go', maxRetries: 0 })).rejects.toThrow(
      'upstream exploded',
    );
  });

  it('drops the connection mid-stream after partial output', async () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve';
    const server = await scriptedServer(script().turn((t) => t.reset().text(text)));
    const result = streamText({ model: modelOf(server), prompt: 'go', maxRetries: 0 });
    let partial = '';
    const consume = async () => {
      for await (const part of result.fullStream) if (part.type === 'text-delta') partial += part.text;
    };
    await expect(consume()).rejects.toThrow('Failed to process successful response');
    expect(partial.length).toBeGreaterThan(0);
    expect(text.startsWith(partial) && partial !== text).toBe(true);
    await expect(result.text).rejects.toThrow();
    expect(server.requests[0].answeredBy.outcome).toBe('reset');
    expect(server.requests[0].endedAt).toBeDefined();
  });

  it('answers normally once the scripted resets are used up', async () => {
    const server = await scriptedServer(script().turn((t) => t.reset(1).text('second time lucky')));
    const first = streamText({ model: modelOf(server), prompt: 'go', maxRetries: 0 });
    await expect(first.text).rejects.toThrow();
    const second = streamText({ model: modelOf(server), prompt: 'go', maxRetries: 0 });
    expect(await second.text).toBe('second time lucky');
    expect(server.requests.map((r) => r.answeredBy.outcome)).toEqual(['reset', 'answer']);
  });

  it('delays answers and serves concurrent conversations in parallel', async () => {
    const server = await scriptedServer(
      script()
        .rule({ first_user: 'A' })
        .turn((t) => t.delay(300).text('answer A'))
        .rule({ first_user: 'B' })
        .turn((t) => t.delay(300).text('answer B')),
    );
    const [a, b] = await Promise.all(
      ['A', 'B'].map((prompt) => generateText({ model: modelOf(server), prompt, maxRetries: 0 })),
    );
    expect([a.text, b.text]).toEqual(['answer A', 'answer B']);
    const [first, second] = [...server.requests].sort((x, y) => x.startedAt - y.startedAt);
    expect(second.startedAt).toBeLessThan(first.endedAt ?? 0);
  });

  it('keeps parallel tool loops (subagents) on their own rules and turns', async () => {
    const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const builder = script();
    for (const name of names) {
      builder
        .rule({ first_user: `task ${name}` }, name)
        .turn((t) => t.delay(1000).tool('read', { path: `${name}.txt` }))
        .turn((t) => t.text(`${name} finished`));
    }
    const server = await scriptedServer(builder);
    const results = await Promise.all(
      names.map((name) =>
        generateText({
          model: modelOf(server),
          prompt: `task ${name}`,
          tools,
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        }),
      ),
    );
    expect(results.map((r) => r.text)).toEqual(names.map((name) => `${name} finished`));
    expect(results.map((r) => r.steps[0].toolResults[0]?.output)).toEqual(
      names.map((n) => `contents of ${n}.txt`),
    );
    expect(server.requests).toHaveLength(12);
    const firstTurns = server.requests.filter((r) => r.answeredBy.turn === 0);
    const lastStart = Math.max(...firstTurns.map((r) => r.startedAt));
    const firstEnd = Math.min(...firstTurns.map((r) => r.endedAt ?? Number.POSITIVE_INFINITY));
    expect(lastStart).toBeLessThan(firstEnd);
  });

  it('reports scripted usage numbers instead of the estimate', async () => {
    const server = await scriptedServer(script().turn((t) => t.text('hi').usage(1234, 56)));
    const result = streamText({ model: modelOf(server), prompt: 'go', maxRetries: 0 });
    expect(await result.usage).toMatchObject({ inputTokens: 1234, outputTokens: 56, totalTokens: 1290 });
  });

  it('records the request: headers, system prompt, tools, model, temperature and reasoning effort', async () => {
    const server = await scriptedServer(script().text('ok'));
    await generateText({
      model: modelOf(server, 'qwen-test'),
      system: 'You are cadre.',
      prompt: 'hello',
      tools,
      temperature: 0.3,
      providerOptions: { scripted: { reasoningEffort: 'low' } },
      maxRetries: 0,
    });
    const [request] = await server.waitForRequests(1);
    expect(request).toMatchObject({ wire: 'openai', method: 'POST', path: '/v1/chat/completions' });
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.headers['x-cadre-test']).toBe('yes');
    expect(request.view).toMatchObject({
      model: 'qwen-test',
      system: 'You are cadre.',
      messages: [{ role: 'user', text: 'hello' }],
      tools: ['read'],
      temperature: 0.3,
      reasoning: { effort: 'low' },
    });
    expect(request.body).toMatchObject({ model: 'qwen-test', temperature: 0.3 });
  });

  it('answers an unscripted request with a visible explanation', async () => {
    const server = await scriptedServer(script().rule({ system: 'writer' }).text('never'));
    const result = await generateText({
      model: modelOf(server),
      system: 'You are the reviewer.',
      prompt: 'hi',
    });
    expect(result.text).toBe(
      '[scripted] no scripted turn for this request (no rule matches; first user message: "hi", turn 0)',
    );
    expect(server.requests[0].answeredBy).toMatchObject({ rule: null, outcome: 'unmatched' });
  });
});
