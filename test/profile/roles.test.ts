import { describe, expect, it } from 'vitest';
import { resolveRoles } from '../../src/profile/roles.js';

const providers = {
  gpt: { type: 'openai' as const, model: 'gpt-5.1' },
  haiku: { type: 'anthropic' as const, model: 'claude-haiku-4-5' },
};

describe('resolveRoles', () => {
  it('falls back to provider for subagent, summarization and review; escalation, critic and approval are off', () => {
    const { routes, warnings } = resolveRoles({ providers, provider: 'gpt', subagent_provider: 'haiku' });
    expect(routes.map((r) => [r.key, r.configured, r.effective, r.via])).toEqual([
      ['subagent_provider', 'haiku', 'haiku', 'configured'],
      ['summarization_provider', null, 'gpt', 'provider'],
      ['review_provider', null, 'gpt', 'provider'],
      ['escalation_provider', null, null, 'off'],
      ['critic_provider', null, null, 'off'],
      ['approval_provider', null, null, 'off'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('routes an explicitly configured critic', () => {
    const critic = resolveRoles({ providers, provider: 'gpt', critic_provider: 'haiku' }).routes.find(
      (r) => r.key === 'critic_provider',
    );
    expect(critic).toEqual({
      key: 'critic_provider',
      configured: 'haiku',
      effective: 'haiku',
      via: 'configured',
    });
  });

  it('warns about a role naming an unknown alias', () => {
    const { warnings } = resolveRoles({ providers, provider: 'gpt', review_provider: 'opus' });
    expect(warnings).toEqual([{ path: 'config:review_provider', reason: 'unknown provider alias "opus"' }]);
  });
});
