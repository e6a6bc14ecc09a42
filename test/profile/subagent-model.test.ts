import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { builtinProfiles } from '../../src/profile/builtin.js';
import { resolveSubagentModel } from '../../src/profile/subagent-model.js';
import type { Profile } from '../../src/profile/types.js';

const explore = builtinProfiles()[0];
const profile: Profile = { ...explore, name: 'researcher', model: 'profile-model', effort: 'low' };
const providers = { haiku: { type: 'anthropic' as const, model: 'claude-haiku-4-5' } };

describe('resolveSubagentModel (SPEC 7.6)', () => {
  it.each<[string, Config, { model?: string; effort?: string } | undefined, string, string | undefined]>([
    [
      'per-profile config first',
      { subagent_models: { researcher: 'pinned' }, subagent_efforts: { researcher: 'max' } },
      { model: 'call-model', effort: 'high' },
      'subagent_models',
      'subagent_efforts',
    ],
    [
      'then the call',
      { subagent_model: 'default-model' },
      { model: 'call-model', effort: 'high' },
      'call',
      'call',
    ],
    [
      'then the profile',
      { subagent_model: 'default-model', subagent_effort: 'minimal' },
      undefined,
      'profile',
      'profile',
    ],
  ])('takes %s', (_label, config, call, modelFrom, effortFrom) => {
    const choice = resolveSubagentModel({ profile, call, config });
    expect(choice).toMatchObject({ ok: true, modelFrom, effortFrom });
  });

  it('falls back to config subagent_model/effort without a profile model', () => {
    const choice = resolveSubagentModel({
      config: { subagent_model: 'haiku', subagent_effort: 'high', providers },
    });
    expect(choice).toEqual({
      ok: true,
      model: { kind: 'alias', alias: 'haiku', provider: providers.haiku },
      modelFrom: 'subagent_model',
      effort: 'high',
      effortFrom: 'subagent_effort',
    });
  });

  it('then uses subagent_provider, then the main model', () => {
    expect(resolveSubagentModel({ config: { subagent_provider: 'haiku', providers } })).toMatchObject({
      modelFrom: 'subagent_provider',
      model: { kind: 'alias', alias: 'haiku' },
    });
    expect(resolveSubagentModel({ config: {} })).toEqual({ ok: true, model: null, modelFrom: 'main' });
  });

  it('puts a user-chosen default model (subagent run --model) at level 5, above subagent_provider only', () => {
    const fallbackModel = 'cli-model';
    expect(
      resolveSubagentModel({ config: { subagent_provider: 'haiku', providers }, fallbackModel }),
    ).toEqual({ ok: true, model: { kind: 'literal', model: 'cli-model' }, modelFrom: 'default' });
    expect(
      resolveSubagentModel({ config: { subagent_model: 'haiku', providers }, fallbackModel }),
    ).toMatchObject({ modelFrom: 'subagent_model' });
    expect(resolveSubagentModel({ profile, config: {}, fallbackModel })).toMatchObject({
      modelFrom: 'profile',
    });
    expect(
      resolveSubagentModel({ profile, config: { subagent_models: { researcher: 'x' } }, fallbackModel }),
    ).toMatchObject({ modelFrom: 'subagent_models' });
  });

  it('rejects an invalid effort naming where it came from', () => {
    expect(resolveSubagentModel({ call: { effort: 'turbo' }, config: {} })).toEqual({
      ok: false,
      error: 'invalid effort "turbo" from call (expected one of off, minimal, low, medium, high, xhigh, max)',
    });
  });

  it('rejects a subagent_provider naming no alias', () => {
    expect(resolveSubagentModel({ config: { subagent_provider: 'nope' } })).toEqual({
      ok: false,
      error: 'subagent_provider: unknown provider alias "nope"',
    });
  });
});
