import { describe, expect, it } from 'vitest';
import { type ModelStreamPart, sdkModelCaller } from '../../src/agent/model-stream.js';
import { createLanguageModel } from '../../src/provider/model.js';
import type { ModelRoute } from '../../src/provider/route.js';
import { script, scriptedServer } from '../support/llm-server.js';

async function callsFor(raw: string[]): Promise<ModelStreamPart[]> {
  const builder = script().turn((t) => {
    for (const r of raw) t.rawTool('read', r);
    return t;
  });
  const server = await scriptedServer(builder);
  const route: ModelRoute = {
    type: 'openai-compatible',
    model: 'm',
    baseURL: server.openaiBaseUrl,
    apiKey: 'k',
  };
  const caller = sdkModelCaller(await createLanguageModel(route), route, {});
  const parts: ModelStreamPart[] = [];
  const tools = [{ name: 'read', description: 'read', inputSchema: { type: 'object' } }];
  for await (const part of caller({
    system: 's',
    messages: [{ role: 'user', content: 'go' }],
    tools,
    signal: new AbortController().signal,
  })) {
    parts.push(part);
  }
  return parts;
}

describe('sdkModelCaller tool arguments', () => {
  it('accepts objects, reads empty arguments as {}, and flags anything else with the reason', async () => {
    const parts = await callsFor(['{"path":"a"}', '', '"a string"', '[1]', 'null', '{"path": ']);
    const calls = parts.flatMap((p) => (p.type === 'tool_call' ? [p.call] : []));
    expect(calls.map((c) => [c.input, c.inputError])).toEqual([
      [{ path: 'a' }, undefined],
      [{}, undefined],
      ['"a string"', 'the arguments must be a JSON object, got string'],
      ['[1]', 'the arguments must be a JSON object, got an array'],
      ['null', 'the arguments must be a JSON object, got null'],
      ['{"path": ', expect.stringContaining('JSON')],
    ]);
    const finish = parts.find((p) => p.type === 'finish');
    expect(finish?.type === 'finish' && finish.assistant[0].content).toEqual([
      { type: 'tool-call', toolCallId: calls[0].id, toolName: 'read', input: { path: 'a' } },
      { type: 'tool-call', toolCallId: calls[1].id, toolName: 'read', input: {} },
      ...calls.slice(2).map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: 'read', input: {} })),
    ]);
  });
});

describe('sdkModelCaller on a Responses stream without its final event', () => {
  /** A v3 model whose stream ends with `finish`: what the OpenAI Responses SDK emits at the end of the body. */
  function modelFinishing(finishReason: { unified: string; raw: string | undefined }) {
    const noTokens = { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined };
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'partial' },
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason,
        // A server that reports no usage at all: that alone is no sign of a cut.
        usage: {
          inputTokens: noTokens,
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
      },
    ];
    return {
      specificationVersion: 'v3' as const,
      provider: 'test.responses',
      modelId: 'gpt-5.1',
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error('not used')),
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      }),
    };
  }

  async function partsOf(finishReason: { unified: string; raw: string | undefined }) {
    const route: ModelRoute = { type: 'openai', model: 'gpt-5.1' };
    const model = modelFinishing(finishReason) as unknown as Parameters<typeof sdkModelCaller>[0];
    const out: ModelStreamPart[] = [];
    for await (const part of sdkModelCaller(
      model,
      route,
      {},
    )({
      system: 's',
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      signal: new AbortController().signal,
    }))
      out.push(part);
    return out;
  }

  it('reports a truncated stream when no response.completed set a finish reason', async () => {
    const last = (await partsOf({ unified: 'other', raw: undefined })).at(-1);
    expect(last?.type).toBe('error');
    expect(String((last as { error: Error }).error.message)).toMatch(/ended before the reply was complete/);
  });

  it('finishes normally on a completed response, even one without usage', async () => {
    const last = (await partsOf({ unified: 'stop', raw: undefined })).at(-1);
    expect(last).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });
});
