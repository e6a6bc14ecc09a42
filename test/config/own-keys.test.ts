import { describe, expect, it } from 'vitest';
import { deepMerge } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { loadConfigProfiles } from '../../src/profile/config-source.js';
import { resolveSubagentModel } from '../../src/profile/subagent-model.js';
import { aliasRoute, resolveMainRoute } from '../../src/provider/route.js';

/** Names that are members of Object.prototype (or the prototype itself) must behave as unknown names. */
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

const config: Config = {
  provider: 'm',
  providers: { m: { type: 'scripted', script: '/s.json' } },
  subagent_models: { reviewer: 'm' },
};

describe('names from the command line and config are own keys only', () => {
  it.each(PROTOTYPE_NAMES)('--provider %s is an unknown alias (bad usage), not a crash', (name) => {
    expect(aliasRoute(config, name, {})).toBeUndefined();
    expect(() => resolveMainRoute(config, { provider: name }, {})).toThrow(
      `unknown provider alias "${name}"; configured aliases: m`,
    );
  });

  it.each(PROTOTYPE_NAMES)('--model %s is a literal model name on the current provider', (name) => {
    expect(resolveMainRoute(config, { model: name }, {})).toMatchObject({ alias: 'm', model: name });
  });

  it.each(['constructor', 'toString', 'valueOf'])(
    'a profile named %s has no per-profile subagent model',
    (name) => {
      const [outcome] = loadConfigProfiles({ agents: { [name]: { prompt: 'p' } } });
      expect(outcome.profile?.name).toBe(name);
      const choice = resolveSubagentModel({ profile: outcome.profile, config });
      expect(choice).toMatchObject({ ok: true, modelFrom: 'main' });
    },
  );

  it('merging a project config over a global one uses only own keys', () => {
    const merged = deepMerge<Config>(
      { agents: { constructor: { prompt: 'global' } } },
      { agents: { toString: { prompt: 'project' } } },
    );
    expect(Object.keys(merged.agents ?? {})).toEqual(['constructor', 'toString']);
  });
});
