import type { Config } from '../config/schema.js';
import { ownValue } from '../util/own.js';
import { isImportedSource, type ModelRef, resolveModelRef } from './model-routing.js';
import { EFFORTS, type Effort, type Profile } from './types.js';

export type ModelOrigin =
  | 'subagent_models'
  | 'call'
  | 'profile'
  | 'subagent_model'
  | 'subagent_provider'
  | 'default'
  | 'main';
export type EffortOrigin = 'subagent_efforts' | 'call' | 'profile' | 'subagent_effort';

export interface SubagentModelRequest {
  profile?: Profile;
  /** The `task` call's own `model` / `effort` parameters. */
  call?: { model?: string; effort?: string };
  config: Config;
  /** Level 5 chosen by the user (`cadre subagent run --model`): replaces `subagent_provider` and the main model. */
  fallbackModel?: string;
}

export type SubagentModelChoice =
  | {
      ok: true;
      /** null: the main loop's model and its default effort. */
      model: Exclude<ModelRef, { kind: 'parent' }> | null;
      modelFrom: ModelOrigin;
      effort?: Effort;
      effortFrom?: EffortOrigin;
    }
  | { ok: false; error: string };

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value.trim() !== '';
}

/** A subagent's model and effort, by the precedence of SPEC 7.6 (highest first). */
export function resolveSubagentModel(request: SubagentModelRequest): SubagentModelChoice {
  const { profile, call, config, fallbackModel } = request;
  const name = profile?.name;
  const perProfileModel = name !== undefined ? ownValue(config.subagent_models, name) : undefined;
  const perProfileEffort = name !== undefined ? ownValue(config.subagent_efforts, name) : undefined;

  const models: [ModelOrigin, string | null | undefined][] = [
    ['subagent_models', perProfileModel],
    ['call', call?.model],
    ['profile', profile?.model],
    ['subagent_model', config.subagent_model],
    ['default', fallbackModel],
  ];
  const efforts: [EffortOrigin, string | null | undefined][] = [
    ['subagent_efforts', perProfileEffort],
    ['call', call?.effort],
    ['profile', profile?.effort],
    ['subagent_effort', config.subagent_effort],
  ];

  let effort: Effort | undefined;
  let effortFrom: EffortOrigin | undefined;
  const effortEntry = efforts.find(([, value]) => present(value));
  if (effortEntry) {
    const [origin, value] = effortEntry;
    if (!(EFFORTS as readonly string[]).includes(value ?? '')) {
      return {
        ok: false,
        error: `invalid effort "${value}" from ${origin} (expected one of ${EFFORTS.join(', ')})`,
      };
    }
    effort = value as Effort;
    effortFrom = origin;
  }

  const modelEntry = models.find(([, value]) => present(value));
  if (modelEntry) {
    const [origin, value] = modelEntry;
    const ref = resolveModelRef(
      (value ?? '').trim(),
      config,
      origin === 'profile' && isImportedSource(profile?.source),
    );
    return {
      ok: true,
      model: ref.kind === 'parent' ? null : ref,
      modelFrom: origin,
      effort,
      effortFrom,
    };
  }
  const role = config.subagent_provider;
  if (present(role)) {
    const ref = resolveModelRef(role, config);
    if (ref.kind !== 'alias')
      return { ok: false, error: `subagent_provider: unknown provider alias "${role}"` };
    return { ok: true, model: ref, modelFrom: 'subagent_provider', effort, effortFrom };
  }
  return { ok: true, model: null, modelFrom: 'main', effort, effortFrom };
}
