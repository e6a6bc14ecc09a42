/** USD per million tokens for models whose price is known; unknown models report no cost. */
interface Price {
  input: number;
  output: number;
  cachedInput?: number;
}

const PRICES: [prefix: string, price: Price][] = [
  ['claude-opus-4', { input: 15, output: 75, cachedInput: 1.5 }],
  ['claude-sonnet-4', { input: 3, output: 15, cachedInput: 0.3 }],
  ['claude-haiku-4', { input: 1, output: 5, cachedInput: 0.1 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4, cachedInput: 0.08 }],
  ['gpt-5.1', { input: 1.25, output: 10, cachedInput: 0.125 }],
  ['gpt-5-mini', { input: 0.25, output: 2, cachedInput: 0.025 }],
  ['gpt-5-nano', { input: 0.05, output: 0.4, cachedInput: 0.005 }],
  ['gpt-5', { input: 1.25, output: 10, cachedInput: 0.125 }],
  ['gpt-4.1-mini', { input: 0.4, output: 1.6, cachedInput: 0.1 }],
  ['gpt-4.1', { input: 2, output: 8, cachedInput: 0.5 }],
  ['gpt-4o-mini', { input: 0.15, output: 0.6, cachedInput: 0.075 }],
  ['gpt-4o', { input: 2.5, output: 10, cachedInput: 1.25 }],
  ['deepseek-chat', { input: 0.27, output: 1.1, cachedInput: 0.07 }],
  // The scripted provider is free; pricing it makes cost accounting testable offline.
  ['scripted', { input: 0, output: 0 }],
];

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
}

export const ZERO_USAGE: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

export function priceOf(model: string): Price | undefined {
  const bare = model.replace(/^.*\//, '');
  return PRICES.find(([prefix]) => bare.startsWith(prefix))?.[1];
}

/** Cost in USD, or null when the model's price is unknown. */
export function costOf(model: string, usage: TokenUsage): number | null {
  const price = priceOf(model);
  if (!price) return null;
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  const cached = usage.cachedInputTokens * (price.cachedInput ?? price.input);
  return (uncached * price.input + cached + usage.outputTokens * price.output) / 1_000_000;
}

const CONTEXT_WINDOWS: [prefix: string, tokens: number][] = [
  ['claude', 200_000],
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_000_000],
  ['gpt-4o', 128_000],
  ['deepseek', 128_000],
];

export function contextWindowOf(model: string): number {
  const bare = model.replace(/^.*\//, '');
  return CONTEXT_WINDOWS.find(([prefix]) => bare.startsWith(prefix))?.[1] ?? 128_000;
}
