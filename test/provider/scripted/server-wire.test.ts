import { describe, expect, it, vi } from 'vitest';
import type { ScriptedServer } from '../../../src/provider/scripted/server.js';
import { script, scriptedServer, withScriptedServer } from '../../support/llm-server.js';

function post(server: ScriptedServer, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** `data:` payloads of an SSE body, with the event name when there is one. */
function sseEvents(text: string): { event?: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
      const data = lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? '';
      return event ? { event, data } : { data };
    });
}

let nextId = 0;
const fixedIds = { newToolCallId: (prefix: string) => `${prefix}_${++nextId}` };

const toolTurn = script().turn((t) =>
  t.text('Reading now.').tool('read', { path: 'a-rather-long-file-name.txt' }),
);
const chat = (extra: object = {}) => ({
  model: 'm',
  stream: true,
  messages: [{ role: 'user', content: 'go' }],
  ...extra,
});

describe('OpenAI chat completions wire', () => {
  it('streams a role chunk, content and tool-call deltas, the finish reason, usage on request, then [DONE]', async () => {
    nextId = 0;
    const server = await scriptedServer(toolTurn, fixedIds);
    const response = await post(
      server,
      '/v1/chat/completions',
      chat({ stream_options: { include_usage: true } }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = sseEvents(await response.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks
      .flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? ''))
      .join('');
    expect(content).toBe('Reading now.');
    const toolDeltas = chunks.flatMap((c) =>
      c.choices.flatMap((ch: { delta: { tool_calls?: unknown[] } }) => ch.delta.tool_calls ?? []),
    );
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'read', arguments: '' },
    });
    expect(toolDeltas.length).toBeGreaterThan(2);
    const args = toolDeltas.map((d: { function: { arguments: string } }) => d.function.arguments).join('');
    expect(JSON.parse(args)).toEqual({ path: 'a-rather-long-file-name.txt' });
    expect(chunks.at(-2).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: expect.any(Number) },
    });
    expect(chunks.every((c) => c.id === chunks[0].id && c.model === 'm')).toBe(true);
  });

  it('sends no usage chunk unless asked', async () => {
    const server = await scriptedServer(script().text('hi'));
    const chunks = sseEvents(await (await post(server, '/v1/chat/completions', chat())).text());
    expect(chunks.some((e) => e.data.includes('"usage"'))).toBe(false);
  });

  it('answers a non-streaming request with one chat.completion document', async () => {
    nextId = 0;
    const server = await scriptedServer(toolTurn, fixedIds);
    const body = await (await post(server, '/v1/chat/completions', chat({ stream: false }))).json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'Reading now.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'read', arguments: '{"path":"a-rather-long-file-name.txt"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
  });

  it('answers a scripted error with the OpenAI error shape and retry-after header', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.error(429, 'Rate limit reached', { retry_after: 7 })),
    );
    const response = await post(server, '/v1/chat/completions', chat());
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toEqual({
      error: {
        message: 'Rate limit reached',
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_error',
      },
    });
  });

  it('cuts a non-streaming reply short when scripted to reset', async () => {
    const server = await scriptedServer(script().turn((t) => t.reset().text('never complete')));
    const response = await post(server, '/v1/chat/completions', chat({ stream: false }));
    await expect(response.text()).rejects.toThrow();
  });
});

describe('Anthropic messages wire', () => {
  const messages = (extra: object = {}) => ({
    model: 'claude',
    max_tokens: 100,
    stream: true,
    messages: [{ role: 'user', content: 'go' }],
    ...extra,
  });

  it('streams message_start, content blocks with deltas, message_delta and message_stop', async () => {
    nextId = 0;
    const server = await scriptedServer(
      script().turn((t) => t.reasoning('hmm').text('Reading now.').tool('read', { path: 'a.txt' })),
      fixedIds,
    );
    const events = sseEvents(await (await post(server, '/v1/messages', messages())).text());
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('message_start');
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const payloads = events.map((e) => JSON.parse(e.data));
    for (const [i, payload] of payloads.entries()) expect(payload.type).toBe(names[i]);
    const starts = payloads.filter((p) => p.type === 'content_block_start');
    expect(starts.map((s) => [s.index, s.content_block.type])).toEqual([
      [0, 'thinking'],
      [1, 'text'],
      [2, 'tool_use'],
    ]);
    expect(starts[2].content_block).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} });
    const deltaTypes = new Set(
      payloads.filter((p) => p.type === 'content_block_delta').map((p) => p.delta.type),
    );
    expect(deltaTypes).toEqual(
      new Set(['thinking_delta', 'signature_delta', 'text_delta', 'input_json_delta']),
    );
    expect(payloads.filter((p) => p.type === 'content_block_stop').map((p) => p.index)).toEqual([0, 1, 2]);
    expect(payloads.at(-2)).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: expect.any(Number) },
    });
  });

  it('answers a non-streaming request with one message document', async () => {
    nextId = 0;
    const server = await scriptedServer(toolTurn, fixedIds);
    const body = await (await post(server, '/v1/messages', messages({ stream: false }))).json();
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'text', text: 'Reading now.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a-rather-long-file-name.txt' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1, output_tokens: expect.any(Number) },
    });
  });

  it('answers a scripted error with the Anthropic error shape', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.error(503, 'try later', { retry_after: 1.5, type: 'overloaded_error' })),
    );
    const response = await post(server, '/v1/messages', messages());
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1.5');
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'try later' },
    });
  });
});

describe('scripted server housekeeping', () => {
  it('rejects unknown routes and non-JSON bodies with readable errors', async () => {
    const server = await scriptedServer(script().text('hi'));
    const missing = await post(server, '/v1/embeddings', {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: {
        message: expect.stringContaining(
          'use POST /v1/chat/completions, POST /v1/responses or POST /v1/messages',
        ),
      },
    });
    const garbled = await post(server, '/v1/chat/completions', '{not json');
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({
      error: { message: 'scripted server: request body is not JSON' },
    });
    expect(server.requests.map((r) => [r.body, r.answeredBy.outcome])).toEqual([['{not json', 'error']]);
  });

  it('waits for requests to arrive, before they are answered', async () => {
    const server = await scriptedServer(script().turn((t) => t.delay(10_000).text('late')));
    const pending = post(server, '/v1/chat/completions', chat()).catch(() => undefined);
    const [request] = await server.waitForRequests(1);
    expect(request.endedAt).toBeUndefined();
    expect(request.answeredBy).toMatchObject({ rule: 0, turn: 0, outcome: 'answer' });
    await server.close();
    await pending;
  });

  it('stops waiting out a delay when the client hangs up, and records when it left', async () => {
    const server = await scriptedServer(script().turn((t) => t.delay(10_000).text('late')));
    const controller = new AbortController();
    const pending = fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chat()),
      signal: controller.signal,
    });
    const [request] = await server.waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(request.endedAt).toBeGreaterThanOrEqual(request.startedAt));
    expect((request.endedAt ?? 0) - request.startedAt).toBeLessThan(5000);
  });

  it('rejects waitForRequests with the count seen when they do not come', async () => {
    const server = await scriptedServer(script().text('hi'));
    await expect(server.waitForRequests(1, 50)).rejects.toThrow('expected 1 requests within 50 ms, got 0');
  });

  it('closes promptly even with a reply still in its delay, and closing twice is harmless', async () => {
    const started = Date.now();
    await withScriptedServer(
      script().turn((t) => t.delay(10_000).text('late')),
      async (server) => {
        const pending = post(server, '/v1/chat/completions', chat());
        await server.waitForRequests(1);
        await server.close();
        await expect(pending).rejects.toThrow();
      },
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('uses the injected clock for request timestamps', async () => {
    let tick = 1000;
    const server = await scriptedServer(script().text('hi'), { now: () => (tick += 5) });
    await (await post(server, '/v1/chat/completions', chat())).text();
    expect(server.requests[0].startedAt).toBe(1005);
    expect(server.requests[0].endedAt).toBeGreaterThan(1005);
  });
});
