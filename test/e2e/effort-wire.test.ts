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

// One cadre run per case: request shapes per provider type (issue 16, B4).
describe.each<[Wire, string, string, (body: Record<string, unknown>) => void]>([
  ['responses', 'gpt-5.1', 'max', (body) => expect(body.reasoning).toEqual({ effort: 'high' })],
  ['responses', 'gpt-5.2', 'max', (body) => expect(body.reasoning).toEqual({ effort: 'xhigh' })],
  ['responses', 'gpt-5.1', 'off', (body) => expect(body.reasoning).toEqual({ effort: 'none' })],
  ['responses', 'gpt-4.1', 'high', (body) => expect(body).not.toHaveProperty('reasoning')],
  [
    'anthropic',
    'claude-sonnet-4-5',
    'max',
    (body) =>
      expect(body).toMatchObject({
        thinking: { type: 'enabled', budget_tokens: 59_904 },
        max_tokens: 64_000,
      }),
  ],
  [
    'anthropic',
    'claude-opus-4-1',
    'xhigh',
    (body) =>
      expect(body).toMatchObject({
        thinking: { type: 'enabled', budget_tokens: 27_904 },
        max_tokens: 32_000,
      }),
  ],
  ['anthropic', 'claude-sonnet-4-5', 'off', (body) => expect(body.thinking).toEqual({ type: 'disabled' })],
  [
    'anthropic',
    'claude-opus-5-5',
    'max',
    (body) =>
      expect(body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }),
  ],
  ['anthropic', 'claude-3-5-haiku-latest', 'high', (body) => expect(body).not.toHaveProperty('thinking')],
  ['openai', 'qwen3', 'xhigh', (body) => expect(body.reasoning_effort).toBe('high')],
  ['openai', 'qwen3', 'minimal', (body) => expect(body.reasoning_effort).toBe('low')],
  ['openai', 'qwen3', 'off', (body) => expect(body).not.toHaveProperty('reasoning_effort')],
])('effort on the %s wire, model %s, reasoning %s', (wire, model, effort, check) => {
  it('goes out as the API accepts it', async () => {
    check(await requestBody(wire, model, effort));
  });
});
