import { describe, expect, it, vi } from 'vitest';
import { warmModelPath } from '../../src/agent/idle-warmup.js';
import { type ModelStreamPart, sdkModelCaller } from '../../src/agent/model-stream.js';
import { createHttpFetch } from '../../src/provider/http-fetch.js';
import { createLanguageModel } from '../../src/provider/model.js';
import type { ModelRoute } from '../../src/provider/route.js';
import { warmReplySignal } from '../../src/provider/warm-reply.js';
import { script, scriptedServer } from '../support/llm-server.js';

const tools = [{ name: 'read', description: 'read a file', inputSchema: { type: 'object' } }];

describe('the canned warm-up reply (issue 17)', () => {
  for (const type of ['openai-compatible', 'anthropic', 'openai'] as const) {
    it(`parses through the ${type} SDK as a text and a tool call, and nothing reaches the server`, async () => {
      const server = await scriptedServer(script().text('never asked'));
      const route: ModelRoute = {
        type,
        model: 'm',
        baseURL: type === 'anthropic' ? server.anthropicBaseUrl : server.openaiBaseUrl,
        apiKey: 'k',
      };
      const caller = sdkModelCaller(await createLanguageModel(route), route, {});
      const parts: ModelStreamPart[] = [];
      for await (const part of caller({
        system: 's',
        messages: [{ role: 'user', content: 'go' }],
        tools,
        signal: warmReplySignal(type),
      }))
        parts.push(part);
      expect(parts.filter((p) => p.type === 'error')).toEqual([]);
      expect(parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text)).toEqual(['ok']);
      expect(parts.flatMap((p) => (p.type === 'tool_call' ? [p.call] : []))).toEqual([
        { id: 'call_warm', name: 'warm', input: { path: 'a' } },
      ]);
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
      // The whole model path once more, as a session's warm-up runs it: history of every part kind included.
      await warmModelPath(caller, { system: 's', tools }, type);
      expect(server.requests).toHaveLength(0);
    });
  }

  it('a warm-up request that cadre’s fetch cannot answer fails instead of going to the fallback', async () => {
    const fallback = vi.fn<typeof fetch>();
    const fetch = createHttpFetch({ fallback });
    await expect(
      fetch('ftp://example.invalid/x', { method: 'POST', signal: warmReplySignal('openai-compatible') }),
    ).rejects.toThrow('fetch failed');
    expect(fallback).not.toHaveBeenCalled();
  });
});
