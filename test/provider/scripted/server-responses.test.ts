import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { viewResponsesRequest } from '../../../src/provider/scripted/responses-view.js';
import type { ScriptedServer } from '../../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../../support/llm-server.js';

function post(server: ScriptedServer, body: unknown): Promise<Response> {
  return fetch(`${server.openaiBaseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

interface SseEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
}

function sseEvents(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? '';
      const data = lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? '';
      return { event, data: JSON.parse(data) };
    });
}

let nextId = 0;
const fixedIds = { newToolCallId: (prefix: string) => `${prefix}_${++nextId}` };

const request = (extra: object = {}) => ({ model: 'gpt-x', stream: true, input: 'go', ...extra });

describe('OpenAI Responses wire: streaming', () => {
  it('streams created, in_progress, each item added/deltas/done, then completed with the whole response and usage', async () => {
    nextId = 0;
    const server = await scriptedServer(
      script().turn((t) =>
        t
          .reasoning('Think it through first.')
          .text('Reading now.')
          .tool('read', { path: 'a-long-file-name.txt' }),
      ),
      fixedIds,
    );
    const response = await post(server, request());
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const body = await response.text();
    expect(body).not.toContain('[DONE]');
    const events = sseEvents(body);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events[0].data.response).toMatchObject({
      object: 'response',
      status: 'in_progress',
      model: 'gpt-x',
    });

    const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => e.data);
    expect(added.map((a) => [a.output_index, (a.item as { type: string }).type])).toEqual([
      [0, 'reasoning'],
      [1, 'message'],
      [2, 'function_call'],
    ]);
    expect(added[2].item).toMatchObject({
      call_id: 'call_1',
      name: 'read',
      arguments: '',
      status: 'in_progress',
    });

    const deltas = (type: string) =>
      events
        .filter((e) => e.event === type)
        .map((e) => e.data.delta)
        .join('');
    expect(deltas('response.reasoning_summary_text.delta')).toBe('Think it through first.');
    expect(deltas('response.output_text.delta')).toBe('Reading now.');
    expect(events.filter((e) => e.event === 'response.function_call_arguments.delta').length).toBeGreaterThan(
      1,
    );
    expect(JSON.parse(deltas('response.function_call_arguments.delta'))).toEqual({
      path: 'a-long-file-name.txt',
    });
    const argsDone = events.find((e) => e.event === 'response.function_call_arguments.done')?.data;
    expect(argsDone).toMatchObject({ output_index: 2, arguments: '{"path":"a-long-file-name.txt"}' });

    const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item);
    const completed = events.at(-1)?.data.response as { output: unknown[]; usage: unknown; status: string };
    expect(completed.status).toBe('completed');
    expect(completed.output).toEqual(done);
    expect(done[1]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Reading now.' }],
    });
    expect(completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
  });

  it('sends a call to a custom (freeform) tool as a custom_tool_call with its raw input', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch';
    const server = await scriptedServer(script().turn((t) => t.rawTool('apply_patch', patch)));
    const events = sseEvents(
      await (
        await post(
          server,
          request({ tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'text' } }] }),
        )
      ).text(),
    );
    const [done] = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item);
    expect(done).toMatchObject({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: patch,
      status: 'completed',
    });
    const input = events
      .filter((e) => e.event === 'response.custom_tool_call_input.delta')
      .map((e) => e.data.delta)
      .join('');
    expect(input).toBe(patch);
  });

  it('includes encrypted reasoning only when the request asks for it', async () => {
    const server = await scriptedServer(script().turn((t) => t.reasoning('hmm').text('ok')));
    const reasoningOf = async (extra: object) => {
      const document = (await (await post(server, request({ stream: false, ...extra }))).json()) as {
        output: Record<string, unknown>[];
      };
      return document.output[0];
    };
    expect(await reasoningOf({})).not.toHaveProperty('encrypted_content');
    expect(await reasoningOf({ include: ['reasoning.encrypted_content'] })).toHaveProperty(
      'encrypted_content',
      expect.any(String),
    );
  });
});

describe('OpenAI Responses wire: documents, errors and stored items', () => {
  it('answers a non-streaming request with one response object', async () => {
    nextId = 0;
    const server = await scriptedServer(
      script().turn((t) => t.text('Reading.').tool('read', { path: 'a.txt' })),
      fixedIds,
    );
    const document = await (await post(server, request({ stream: false }))).json();
    expect(document).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-x',
      output: [
        { type: 'message', content: [{ type: 'output_text', text: 'Reading.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.txt"}' },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it('answers a scripted error with the OpenAI error shape and retry-after', async () => {
    const server = await scriptedServer(script().turn((t) => t.error(429, 'Slow down', { retry_after: 2 })));
    const response = await post(server, request());
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({
      error: { message: 'Slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_error' },
    });
  });

  it('cuts a streamed reply short, before response.completed, when scripted to reset', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.reset().text('one two three four five six seven')),
    );
    const response = await post(server, request());
    await expect(response.text()).rejects.toThrow();
    expect(server.requests[0].answeredBy.outcome).toBe('reset');
  });

  it('resolves item references and previous_response_id to stored output; unknown ones are a 404', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.reasoning('plan').tool('read', { path: 'a.txt' }))
        .text('done'),
    );
    const first = (await (await post(server, request({ stream: false }))).json()) as {
      id: string;
      output: { id: string; type: string; call_id?: string }[];
    };
    const [reasoning, call] = first.output;
    const byReference = await post(server, {
      ...request({ stream: false }),
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'go' }] },
        { type: 'item_reference', id: reasoning.id },
        { type: 'item_reference', id: call.id },
        { type: 'function_call_output', call_id: call.call_id, output: 'alpha' },
      ],
    });
    expect(byReference.status).toBe(200);
    expect(server.requests[1].answeredBy.turn).toBe(1);
    expect(server.requests[1].view.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);

    const chained = await post(server, {
      ...request({ stream: false, previous_response_id: first.id }),
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'alpha' }],
    });
    expect(chained.status).toBe(200);
    expect(server.requests[2].view.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);

    const unknown = await post(server, { ...request(), input: [{ type: 'item_reference', id: 'rs_nope' }] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { message: "Item with id 'rs_nope' not found." } });
    const noPrevious = await post(server, request({ previous_response_id: 'resp_nope' }));
    expect(noPrevious.status).toBe(404);
    expect(server.requests.slice(3).map((r) => r.answeredBy.outcome)).toEqual(['error', 'error']);
  });

  it('keeps nothing of a request that says store: false', async () => {
    const server = await scriptedServer(script().text('hi'));
    const first = (await (await post(server, request({ stream: false, store: false }))).json()) as {
      id: string;
      output: { id: string }[];
    };
    const again = await post(server, {
      ...request(),
      input: [{ type: 'item_reference', id: first.output[0].id }],
    });
    expect(again.status).toBe(404);
  });
});

describe('viewResponsesRequest', () => {
  it('reads instructions, developer messages, parallel calls as one round, outputs and parameters', () => {
    const view = viewResponsesRequest({
      model: 'gpt-x',
      instructions: 'You are cadre.',
      stream: true,
      temperature: 0.3,
      max_output_tokens: 900,
      reasoning: { effort: 'high', summary: 'auto' },
      input: [
        { role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'read both' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
        { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a"}' },
        { type: 'function_call', call_id: 'c2', name: 'read', arguments: '{"path":"b"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'A' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'B' }] },
        { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c3', output: 'applied' },
      ],
      tools: [
        { type: 'function', name: 'read', parameters: {} },
        { type: 'custom', name: 'apply_patch' },
        { type: 'web_search' },
      ],
    });
    expect(view).toEqual({
      model: 'gpt-x',
      system: 'You are cadre.\n\nBe brief.',
      messages: [
        { role: 'user', text: 'read both' },
        {
          role: 'assistant',
          text: 'Reading.',
          toolCalls: [
            { id: 'c1', name: 'read', arguments: '{"path":"a"}' },
            { id: 'c2', name: 'read', arguments: '{"path":"b"}' },
          ],
        },
        { role: 'tool', text: 'A', toolCallId: 'c1' },
        { role: 'tool', text: 'B', toolCallId: 'c2' },
        {
          role: 'assistant',
          text: '',
          toolCalls: [{ id: 'c3', name: 'apply_patch', arguments: '*** Begin Patch' }],
        },
        { role: 'tool', text: 'applied', toolCallId: 'c3' },
      ],
      tools: ['read', 'apply_patch', 'web_search'],
      stream: true,
      temperature: 0.3,
      maxTokens: 900,
      reasoning: { effort: 'high' },
    });
  });

  it('tolerates junk: a missing or non-list input, non-object items, unknown item types', () => {
    for (const body of [null, 'text', { input: 42 }, { input: [null, 7, { type: 'mystery' }] }]) {
      expect(viewResponsesRequest(body)).toMatchObject({ messages: [], system: '', tools: [] });
    }
  });
});

describe('the AI SDK OpenAI provider against the Responses wire', () => {
  const read = tool({
    description: 'read a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
  });

  it('streams reasoning, text and a tool call the SDK parses, then continues by reference', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.reasoning('Plan: read it.').text('Reading.').tool('read', { path: 'a.txt' }))
        .text('It says alpha.'),
    );
    const model = createOpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'scripted' })('gpt-x');
    const first = streamText({ model, prompt: 'what is in a.txt?', tools: { read } });
    const calls = await first.toolCalls;
    expect(await first.reasoningText).toBe('Plan: read it.');
    expect(await first.text).toBe('Reading.');
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([['read', { path: 'a.txt' }]]);
    expect((await first.usage).outputTokens).toBeGreaterThan(0);
    const messages = [
      { role: 'user' as const, content: 'what is in a.txt?' },
      ...(await first.response).messages,
      {
        role: 'tool' as const,
        content: [
          {
            type: 'tool-result' as const,
            toolCallId: calls[0].toolCallId,
            toolName: 'read',
            output: { type: 'text' as const, value: 'alpha' },
          },
        ],
      },
    ];
    const second = await generateText({ model, messages, tools: { read } });
    expect(second.text).toBe('It says alpha.');
    const [, secondRequest] = server.requests;
    expect(JSON.stringify(secondRequest.body)).toContain('item_reference');
    expect(secondRequest.answeredBy).toMatchObject({ turn: 1, outcome: 'answer' });
  });
});
