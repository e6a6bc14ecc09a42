import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, providerFor, servedProject, type Wire } from './harness.js';

/** The first request of `cadre -p` under a profile with `reasoning: <effort>`, on `wire` with `model`. */
async function requestBody(wire: Wire, model: string, effort: string): Promise<Record<string, unknown>> {
  const server: ScriptedServer = await scriptedServer(script().text('thought'));
  const project = servedProject(server, {
    config: { providers: { fake: { ...providerFor(server, wire), model } } },
    files: { '.cadre/agents/thinker.md': `---\nreasoning: ${effort}\n---\nYou think.\n` },
  });
  const run = await cadreIn(project, ['-p', 'think', '--agent', 'thinker']);
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('thought\n');
  // No provider warning that the effort (or its budget) was dropped or rewritten.
  expect(run.stderr).not.toMatch(/not supported|thinking|effort/i);
  return server.requests[0].body as Record<string, unknown>;
}

describe('effort on the wire, per provider type (issue 16, B4)', () => {
  it('OpenAI Responses: reasoning.effort from the model’s own set, max its highest', async () => {
    expect((await requestBody('responses', 'gpt-5.1', 'max')).reasoning).toEqual({ effort: 'high' });
    expect((await requestBody('responses', 'gpt-5.2', 'max')).reasoning).toEqual({ effort: 'xhigh' });
    expect((await requestBody('responses', 'gpt-5.1', 'off')).reasoning).toEqual({ effort: 'none' });
  });

  it('OpenAI Responses: a model without reasoning gets no reasoning field', async () => {
    expect(await requestBody('responses', 'gpt-4.1', 'high')).not.toHaveProperty('reasoning');
  });

  it('Anthropic: a thinking budget below max_tokens, max_tokens within the model’s limit', async () => {
    const max = await requestBody('anthropic', 'claude-sonnet-4-5', 'max');
    expect(max.thinking).toEqual({ type: 'enabled', budget_tokens: 59_904 });
    expect(max.max_tokens).toBe(64_000);
    const opus = await requestBody('anthropic', 'claude-opus-4-1', 'xhigh');
    expect(opus.thinking).toEqual({ type: 'enabled', budget_tokens: 27_904 });
    expect(opus.max_tokens).toBe(32_000);
    const off = await requestBody('anthropic', 'claude-sonnet-4-5', 'off');
    expect(off.thinking).toEqual({ type: 'disabled' });
  });

  it('Anthropic: a model without extended thinking gets no thinking field', async () => {
    expect(await requestBody('anthropic', 'claude-3-5-haiku-latest', 'high')).not.toHaveProperty('thinking');
  });

  it('chat completions: reasoning_effort low/medium/high, none for off', async () => {
    expect((await requestBody('openai', 'qwen3', 'xhigh')).reasoning_effort).toBe('high');
    expect((await requestBody('openai', 'qwen3', 'minimal')).reasoning_effort).toBe('low');
    expect(await requestBody('openai', 'qwen3', 'off')).not.toHaveProperty('reasoning_effort');
  });
});
