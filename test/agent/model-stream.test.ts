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
