import { skillCatalogText, skillSection } from '../skill/catalog.js';
import type { Skill } from '../skill/types.js';
import { BUILTIN_TOOL_NAMES } from '../tool/names.js';
import type { PromptFile, PromptMode } from './prompts.js';
import type { Effort, Profile } from './types.js';

/** What the session runs with when neither layer is active. */
export interface BaseSettings {
  prompt: string;
  model?: string;
  effort?: Effort;
  temperature?: number;
}

/**
 * The `/prompt` and `/agent` layers as data (SPEC 4.1). Nothing is copied into `base` on activation,
 * so dropping a layer and recomputing restores exactly what was there before.
 */
export interface ActivationState {
  base: BaseSettings;
  promptLayer?: PromptFile;
  profileLayer?: Profile;
}

export type DenyLayer = 'prompt' | 'profile';

export interface EffectiveView {
  systemPrompt: string;
  mode: PromptMode;
  /** Union of both layers' denies, sorted. */
  denyTools: string[];
  /** For each denied tool, the layer(s) that denied it. */
  denyLayers: Record<string, DenyLayer[]>;
  /** The profile's allow list with every denied tool removed (deny wins). */
  allowTools?: string[];
  model?: string;
  effort?: Effort;
  temperature?: number;
  activeProfile?: string;
  activePrompt?: string;
  /** Skills force-loaded by the profile (their bodies are in `systemPrompt`). */
  forcedSkills: string[];
  /** The auto-skill catalog section for the system prompt; empty when there is none. */
  skillCatalog: string;
}

export interface SkillSource {
  skills: readonly Skill[];
}

export interface ProfileSkills {
  found: Skill[];
  /** Warnings for names matching no skill, naming the profile and the skill (SPEC 3.5). */
  warnings: string[];
}

/** The skills a profile's `skills:` list force-loads, regardless of their `applies_to`. */
export function resolveProfileSkills(profile: Profile, skills: readonly Skill[]): ProfileSkills {
  const found: Skill[] = [];
  const warnings: string[] = [];
  for (const name of profile.skills) {
    const skill = skills.find((s) => s.name === name);
    if (skill) found.push(skill);
    else warnings.push(`profile "${profile.name}": skill "${name}" not found; dropped`);
  }
  return { found, warnings };
}

/** A profile's own denies: its `deny_tools`, plus every built-in outside its allow list. */
export function profileDenies(profile: Profile): string[] {
  const outsideAllow = profile.allowTools
    ? BUILTIN_TOOL_NAMES.filter((tool) => !profile.allowTools?.includes(tool))
    : [];
  return [...new Set([...profile.denyTools, ...outsideAllow])];
}

/** Recomputes everything the session runs with from the layers. Pure. */
export function effectiveView(state: ActivationState, registry: SkillSource): EffectiveView {
  const { base, promptLayer, profileLayer } = state;
  const denyLayers: Record<string, DenyLayer[]> = Object.create(null);
  const addDeny = (tool: string, layer: DenyLayer) => {
    const layers = denyLayers[tool] ?? [];
    if (!layers.includes(layer)) layers.push(layer);
    denyLayers[tool] = layers;
  };
  for (const tool of promptLayer?.denyTools ?? []) addDeny(tool, 'prompt');
  if (profileLayer) for (const tool of profileDenies(profileLayer)) addDeny(tool, 'profile');
  const denyTools = Object.keys(denyLayers).sort();

  const forced = profileLayer ? resolveProfileSkills(profileLayer, registry.skills).found : [];
  const body = profileLayer?.prompt || (promptLayer ? promptLayer.body : base.prompt);
  const systemPrompt = [body, ...forced.map(skillSection)].filter((part) => part !== '').join('\n\n');

  return {
    systemPrompt,
    mode: promptLayer?.mode ?? 'default',
    denyTools,
    denyLayers,
    allowTools: profileLayer?.allowTools?.filter((tool) => !Object.hasOwn(denyLayers, tool)),
    model: profileLayer?.model ?? base.model,
    effort: profileLayer?.effort ?? base.effort,
    temperature: profileLayer?.temperature ?? base.temperature,
    activeProfile: profileLayer?.name,
    activePrompt: promptLayer?.name,
    forcedSkills: forced.map((s) => s.name),
    skillCatalog: skillCatalogText(
      registry.skills,
      profileLayer?.name,
      forced.map((s) => s.name),
    ),
  };
}

export type LayerChange =
  | { ok: true; state: ActivationState; warnings: string[] }
  | { ok: false; message: string; known: string[]; state: ActivationState };

/** `/prompt <name>`; `default` clears the prompt layer. Unknown names leave the state unchanged. */
export function selectPrompt(
  state: ActivationState,
  name: string,
  prompts: ReadonlyMap<string, PromptFile>,
): LayerChange {
  if (name === 'default') return { ok: true, state: { ...state, promptLayer: undefined }, warnings: [] };
  const prompt = prompts.get(name);
  if (!prompt) {
    const known = ['default', ...prompts.keys()];
    return { ok: false, message: `unknown prompt "${name}"; known: ${known.join(', ')}`, known, state };
  }
  return { ok: true, state: { ...state, promptLayer: prompt }, warnings: [] };
}

/**
 * `/agent <name>`: sets the profile layer, replacing any active profile, so `/agent off` always
 * returns to the state before the first activation. Unknown names leave the state unchanged.
 */
export function activateProfile(
  state: ActivationState,
  name: string,
  registry: SkillSource & { profiles: ReadonlyMap<string, Profile> },
): LayerChange {
  const profile = registry.profiles.get(name);
  if (!profile) {
    const known = [...registry.profiles.keys()];
    return { ok: false, message: `unknown profile "${name}"; known: ${known.join(', ')}`, known, state };
  }
  const { warnings } = resolveProfileSkills(profile, registry.skills);
  return { ok: true, state: { ...state, profileLayer: profile }, warnings };
}

/** `/agent off`: drops the profile layer; the prompt layer and base settings come back in one step. */
export function deactivateProfile(state: ActivationState): ActivationState {
  return { ...state, profileLayer: undefined };
}

/**
 * `/model` and `/effort`: the choice belongs to the top layer, so it holds while that layer does — a
 * choice made under a profile ends with `/agent off` (which restores the previous one), a choice made
 * without one becomes the base.
 */
export function overrideSettings(
  state: ActivationState,
  settings: { model?: string; effort?: Effort },
): ActivationState {
  if (state.profileLayer) return { ...state, profileLayer: { ...state.profileLayer, ...settings } };
  return { ...state, base: { ...state.base, ...settings } };
}
