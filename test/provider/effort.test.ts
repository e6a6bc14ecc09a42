import { describe, expect, it } from 'vitest';
import {
  anthropicOutputLimit,
  nearestLevel,
  openaiEffortLevels,
  requestSettingsFor,
} from '../../src/provider/effort.js';
import type { Effort, ModelRoute } from '../../src/provider/route.js';

const route = (type: ModelRoute['type'], model: string): ModelRoute => ({ type, model });

function budgetOf(settings: ReturnType<typeof requestSettingsFor>): number {
  const thinking = settings.providerOptions?.anthropic?.thinking as { budgetTokens?: number } | undefined;
  return thinking?.budgetTokens ?? Number.NaN;
}

describe('nearestLevel', () => {
  it.each<[Effort, string[], string]>([
    ['off', ['none', 'low', 'medium', 'high'], 'none'],
    ['off', ['minimal', 'low', 'medium', 'high'], 'minimal'],
    ['minimal', ['none', 'low', 'medium', 'high'], 'low'],
    ['medium', ['low', 'medium', 'high'], 'medium'],
    ['xhigh', ['low', 'medium', 'high'], 'high'],
    ['max', ['low', 'medium', 'high'], 'high'],
    ['max', ['none', 'low', 'medium', 'high', 'xhigh'], 'xhigh'],
    ['max', ['low', 'medium', 'high', 'xhigh', 'max'], 'max'],
  ])('%s on %j is %s', (effort, levels, expected) => {
    expect(nearestLevel(effort, levels as Parameters<typeof nearestLevel>[1])).toBe(expected);
  });
});

describe('openaiEffortLevels', () => {
  it.each<[string, string[] | undefined]>([
    ['o3', ['low', 'medium', 'high']],
    ['o4-mini', ['low', 'medium', 'high']],
    ['gpt-5', ['minimal', 'low', 'medium', 'high']],
    ['gpt-5-codex', ['minimal', 'low', 'medium', 'high']],
    ['gpt-5.1', ['none', 'low', 'medium', 'high']],
    ['gpt-5.1-codex-max', ['none', 'low', 'medium', 'high', 'xhigh']],
    ['gpt-5.2', ['none', 'low', 'medium', 'high', 'xhigh']],
    ['gpt-6', ['low', 'medium', 'high', 'xhigh', 'max']],
    ['gpt-4o', undefined],
    ['gpt-4.1-mini', undefined],
    ['gpt-5-chat-latest', undefined],
    ['my-proxy-model', undefined],
  ])('%s accepts %j', (model, levels) => {
    expect(openaiEffortLevels(model)).toEqual(levels);
  });
});

describe('anthropicOutputLimit', () => {
  it.each<[string, number | undefined]>([
    ['claude-sonnet-4-5', 64_000],
    ['claude-haiku-4-5-20251001', 64_000],
    ['claude-opus-4-1', 32_000],
    ['claude-opus-4-6', 128_000],
    ['claude-3-7-sonnet-latest', 64_000],
    ['claude-3-5-haiku-latest', undefined],
    ['some-proxy-alias', 32_000],
  ])('%s: %s', (model, limit) => {
    expect(anthropicOutputLimit(model)).toBe(limit);
  });
});

describe('requestSettingsFor', () => {
  it('sends nothing without an effort, keeping the output cap', () => {
    for (const type of ['anthropic', 'openai', 'openai-compatible', 'scripted'] as const) {
      expect(requestSettingsFor(route(type, 'gpt-5.1'), { maxOutputTokens: 500 })).toEqual({
        maxOutputTokens: 500,
      });
    }
  });

  const efforts: Effort[] = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
  it.each(['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-opus-4-6', 'proxy-model'])(
    'keeps every Anthropic budget at least 1024, below max_tokens and max_tokens within the limit (%s)',
    (model) => {
      const limit = anthropicOutputLimit(model) ?? 0;
      const budgets = efforts.map((effort) => {
        for (const cap of [undefined, 2000]) {
          const settings = requestSettingsFor(route('anthropic', model), { effort, maxOutputTokens: cap });
          const budget = budgetOf(settings);
          // The SDK sends max_tokens = maxOutputTokens + budget.
          const maxTokens = (settings.maxOutputTokens ?? 0) + budget;
          expect(budget).toBeGreaterThanOrEqual(1024);
          expect(budget).toBeLessThan(maxTokens);
          expect(maxTokens).toBeLessThanOrEqual(limit);
          if (cap) expect(settings.maxOutputTokens).toBeLessThanOrEqual(cap);
        }
        return budgetOf(requestSettingsFor(route('anthropic', model), { effort }));
      });
      // Rising with the effort, and max is the most the model allows.
      expect([...budgets].sort((a, b) => a - b)).toEqual(budgets);
      expect(budgets.at(-1)).toBe(limit - 4096);
    },
  );

  it.each<[Effort, string]>([
    ['minimal', 'low'],
    ['medium', 'medium'],
    ['max', 'max'],
  ])(
    'gives an adaptive-only Claude model (no budgets) effort %s as output_config effort %s',
    (effort, level) => {
      expect(requestSettingsFor(route('anthropic', 'claude-opus-5-5'), { effort })).toEqual({
        providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: level } },
      });
    },
  );

  it('turns Anthropic thinking off for off, and sends nothing to a model without thinking', () => {
    expect(requestSettingsFor(route('anthropic', 'claude-sonnet-4-5'), { effort: 'off' })).toEqual({
      providerOptions: { anthropic: { thinking: { type: 'disabled' } } },
    });
    expect(requestSettingsFor(route('anthropic', 'claude-3-5-haiku-latest'), { effort: 'high' })).toEqual({});
  });

  it.each<[string, Effort, string | undefined]>([
    ['gpt-5.1', 'off', 'none'],
    ['gpt-5.1', 'max', 'high'],
    ['gpt-5', 'off', 'minimal'],
    ['gpt-5.2', 'max', 'xhigh'],
    ['o3', 'minimal', 'low'],
    ['gpt-4o', 'high', undefined],
  ])('OpenAI %s, effort %s: reasoning effort %s', (model, effort, expected) => {
    const settings = requestSettingsFor(route('openai', model), { effort });
    expect(settings.providerOptions?.openai?.reasoningEffort).toBe(expected);
  });

  it.each<[Effort, string | undefined]>([
    ['off', undefined],
    ['minimal', 'low'],
    ['medium', 'medium'],
    ['max', 'high'],
  ])('a chat-completions server, effort %s: reasoning_effort %s', (effort, expected) => {
    for (const type of ['openai-compatible', 'scripted'] as const) {
      const settings = requestSettingsFor(route(type, 'qwen3'), { effort });
      expect(settings.providerOptions?.openaiCompatible?.reasoningEffort).toBe(expected);
    }
  });
});
