import type { streamText } from 'ai';
import type { Effort, ModelParams, ModelRoute } from './route.js';

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

/** What a route's effort and output cap become in one request (issue 16, B4). */
export interface RequestSettings {
  providerOptions?: ProviderOptions;
  maxOutputTokens?: number;
}

/** cadre's scale in rising order; `off` sits where the APIs put `none`. */
const RANK: Record<Effort, number> = { off: 0, minimal: 1, low: 2, medium: 3, high: 4, xhigh: 5, max: 6 };
type Level = 'none' | Exclude<Effort, 'off'>;
const rankOf = (level: Level) => (level === 'none' ? 0 : RANK[level]);

/**
 * The level of `accepted` (rising) nearest to `effort`; on a tie the higher one, since asking for some
 * reasoning should not become none. `max` is therefore always the highest level the model accepts.
 */
export function nearestLevel(effort: Effort, accepted: readonly Level[]): Level {
  let best = accepted[0];
  for (const level of accepted) {
    if (Math.abs(rankOf(level) - RANK[effort]) <= Math.abs(rankOf(best) - RANK[effort])) best = level;
  }
  return best;
}

/** The `reasoning.effort` values an OpenAI model accepts, rising; undefined for a model without reasoning. */
export function openaiEffortLevels(model: string): readonly Level[] | undefined {
  if (/^o\d+(-|$)/.test(model)) return ['low', 'medium', 'high'];
  const gpt = /^gpt-(\d+)(?:\.(\d+))?(?:-(.+))?$/.exec(model);
  // Unknown names (a proxy's aliases) are not reasoning models to the SDK either; it would drop the effort.
  if (!gpt) return undefined;
  const [major, minor, variant = ''] = [Number(gpt[1]), Number(gpt[2] ?? 0), gpt[3]];
  if (major < 5 || variant.startsWith('chat')) return undefined;
  if (major >= 6) return ['low', 'medium', 'high', 'xhigh', 'max'];
  if (minor === 0) return ['minimal', 'low', 'medium', 'high'];
  if (minor === 1 && !variant.includes('max')) return ['none', 'low', 'medium', 'high'];
  return ['none', 'low', 'medium', 'high', 'xhigh'];
}

/** What servers speaking chat completions commonly accept for `reasoning_effort`. */
const COMPATIBLE_LEVELS: readonly Level[] = ['low', 'medium', 'high'];

/** Thinking budgets (tokens) by effort; `max` is whatever the model's output limit leaves. */
const ANTHROPIC_BUDGET: Record<Exclude<Effort, 'off' | 'max'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 32_000,
};
const ANTHROPIC_MIN_BUDGET = 1024;
/** Output left for the answer itself above the thinking budget. */
const ANTHROPIC_ANSWER_RESERVE = 4096;

/**
 * A Claude model's output limit (`max_tokens` counts thinking too), or undefined for one without extended
 * thinking. Unknown names (proxies, new models) get the smallest limit of a thinking model.
 */
export function anthropicOutputLimit(model: string): number | undefined {
  if (/-5-5|opus-5|fable|opus-4-[678]|sonnet-5|sonnet-4-6/.test(model)) return 128_000;
  if (/sonnet-4|haiku-4|opus-4-5|3-7-sonnet/.test(model)) return 64_000;
  if (/claude-3-|claude-instant/.test(model)) return undefined;
  return 32_000;
}

/** Models that take no thinking budget, only adaptive thinking steered by `output_config.effort`. */
const ANTHROPIC_ADAPTIVE_ONLY = /-5-5|fable/;
const ANTHROPIC_EFFORT_LEVELS: readonly Level[] = ['low', 'medium', 'high', 'xhigh', 'max'];

function anthropicSettings(route: ModelRoute, params: ModelParams, effort: Effort): RequestSettings {
  const limit = anthropicOutputLimit(route.model);
  if (limit === undefined) return { maxOutputTokens: params.maxOutputTokens };
  if (effort === 'off') {
    return {
      providerOptions: { anthropic: { thinking: { type: 'disabled' } } },
      maxOutputTokens: params.maxOutputTokens,
    };
  }
  if (ANTHROPIC_ADAPTIVE_ONLY.test(route.model)) {
    return {
      providerOptions: {
        anthropic: { thinking: { type: 'adaptive' }, effort: nearestLevel(effort, ANTHROPIC_EFFORT_LEVELS) },
      },
      maxOutputTokens: params.maxOutputTokens,
    };
  }
  const room = limit - ANTHROPIC_ANSWER_RESERVE;
  const wanted = effort === 'max' ? room : ANTHROPIC_BUDGET[effort];
  const budgetTokens = Math.max(ANTHROPIC_MIN_BUDGET, Math.min(wanted, room));
  // The SDK sends max_tokens = maxOutputTokens + budget: this keeps it within the limit and above the budget.
  const answer = Math.min(params.maxOutputTokens ?? Number.POSITIVE_INFINITY, limit - budgetTokens);
  return {
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens } } },
    maxOutputTokens: answer,
  };
}

/**
 * Maps cadre's effort scale onto what each provider's API accepts (SPEC 4.2, issue 16 B4): an Anthropic
 * thinking budget below `max_tokens` and within the model's output limit (adaptive thinking with
 * `output_config.effort` for models without budgets); an OpenAI `reasoning.effort`
 * from the model's own set; `reasoning_effort` low/medium/high on chat-completions servers; nothing for
 * a model without reasoning controls.
 */
export function requestSettingsFor(route: ModelRoute, params: ModelParams): RequestSettings {
  const { effort } = params;
  if (!effort) return { maxOutputTokens: params.maxOutputTokens };
  switch (route.type) {
    case 'anthropic':
      return anthropicSettings(route, params, effort);
    case 'openai': {
      const levels = openaiEffortLevels(route.model);
      if (!levels) return { maxOutputTokens: params.maxOutputTokens };
      return {
        providerOptions: { openai: { reasoningEffort: nearestLevel(effort, levels) } },
        maxOutputTokens: params.maxOutputTokens,
      };
    }
    default:
      // Off is the server's own default: there is no common way to ask a chat-completions server for none.
      if (effort === 'off') return { maxOutputTokens: params.maxOutputTokens };
      return {
        providerOptions: { openaiCompatible: { reasoningEffort: nearestLevel(effort, COMPATIBLE_LEVELS) } },
        maxOutputTokens: params.maxOutputTokens,
      };
  }
}
