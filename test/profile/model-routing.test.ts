import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { resolveModelRef } from '../../src/profile/model-routing.js';

const config: Config = {
  providers: {
    haiku: { type: 'anthropic', model: 'claude-haiku-4-5', api_key_env: 'ANTHROPIC_API_KEY' },
    local: { type: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', model: 'qwen3-coder' },
  },
  provider: 'local',
};

describe('resolveModelRef', () => {
  it('takes an alias with its whole route, so a profile may live on another backend', () => {
    expect(resolveModelRef('haiku', config)).toEqual({
      kind: 'alias',
      alias: 'haiku',
      provider: { type: 'anthropic', model: 'claude-haiku-4-5', api_key_env: 'ANTHROPIC_API_KEY' },
    });
  });

  it.each(['gpt-5.1', 'claude-opus-4-1', 'toString'])(
    'uses %s verbatim as a model name when no alias matches',
    (ref) => {
      expect(resolveModelRef(ref, config)).toEqual({ kind: 'literal', model: ref });
    },
  );

  it('treats every reference as literal without a providers map', () => {
    expect(resolveModelRef('haiku', {})).toEqual({ kind: 'literal', model: 'haiku' });
  });
});
