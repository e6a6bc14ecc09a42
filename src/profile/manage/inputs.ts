import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/schema.js';
import { BUILTIN_TOOL_NAMES, FOREIGN_TOOL_NAMES } from '../../tool/names.js';
import type { ProfileRegistry } from '../load.js';
import { resolveModelRef } from '../model-routing.js';
import { profileNameProblem } from '../names.js';
import { translateToolList } from '../tool-lists.js';
import { EFFORTS, type Effort } from '../types.js';
import { scopeOf } from './editable.js';

/** Bad input to a profile editor: the CLI prints the message and exits 2, nothing is changed. */
export class EditRefused extends Error {
  override name = 'EditRefused';
}

/** The four places a profile file of a name can live, so a new one never lands beside an unloadable one. */
export function profilePlaces(projectRoot: string, globalDir: string, name: string): string[] {
  return [
    join(projectRoot, '.cadre', 'agents', `${name}.md`),
    join(projectRoot, '.cadre', 'skills', name),
    join(globalDir, 'agents', `${name}.md`),
    join(globalDir, 'skills', name),
  ];
}

/**
 * Refuses a name for a new profile: invalid or reserved (SPEC 3.3), or already taken by any profile
 * (whichever source won or lost), any skill, a built-in, a config entry, or a file that failed to load.
 */
export function checkNewName(
  name: string,
  registry: ProfileRegistry,
  places: readonly string[],
  config: Config,
): void {
  const problem = profileNameProblem(name);
  if (problem !== undefined) {
    throw new EditRefused(
      `${problem}; a profile name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, and not one of the reserved words or tool names`,
    );
  }
  const existing = registry.profiles.get(name);
  if (existing?.source === 'builtin') {
    throw new EditRefused(
      `"${name}" is a built-in profile; pick another name (to change its model or effort: cadre subagent edit ${name} --model REF --effort LEVEL)`,
    );
  }
  if (existing) {
    const scope = scopeOf(existing.source);
    const editable = scope === 'project' || scope === 'global';
    throw new EditRefused(
      `a ${existing.source} profile named "${name}" already exists (${existing.path ?? `config agents.${name}`}); pick another name${editable ? `, or change it with cadre subagent edit ${name}` : ''}`,
    );
  }
  const skill = registry.skills.find((s) => s.name === name);
  if (skill)
    throw new EditRefused(`a skill named "${name}" already exists (${skill.path}); pick another name`);
  if (config.agents && Object.hasOwn(config.agents, name)) {
    throw new EditRefused(`the config already defines agents.${name}; pick another name`);
  }
  const taken = places.find((place) => existsSync(place));
  if (taken) throw new EditRefused(`${taken} already exists; pick another name or remove it first`);
}

/** A description is one line, shown in listings and to the main model (SPEC 3.2). */
export function checkDescription(text: string): string {
  const trimmed = text.trim();
  if (/[\r\n]/.test(trimmed)) throw new EditRefused('--description must be one line');
  return trimmed;
}

export function checkEffort(value: string): Effort {
  if (!(EFFORTS as readonly string[]).includes(value)) {
    throw new EditRefused(`invalid --effort "${value}": use one of ${EFFORTS.join(', ')}`);
  }
  return value as Effort;
}

/**
 * `--model`: a configured `providers` alias, or else a literal model name on the main provider (SPEC
 * 4.2). Returns a note for the latter, so a typo in an alias is seen at once.
 */
export function modelNote(ref: string, config: Config): string | undefined {
  if (/\s/.test(ref)) throw new EditRefused(`invalid --model "${ref}": a model reference has no spaces`);
  if (resolveModelRef(ref, config).kind === 'alias') return undefined;
  const aliases = Object.keys(config.providers ?? {});
  return `"${ref}" is not a configured provider alias (${aliases.length > 0 ? `aliases: ${aliases.join(', ')}` : 'none configured'}); it will be used as a literal model name on the main provider`;
}

/** `--tools a,b`: cadre names after translation (Claude Code names as everywhere else); unknown names refused. */
export function checkTools(value: string): string[] {
  const result = translateToolList(value, '--tools');
  if (!result.ok) throw new EditRefused(result.reason);
  if (result.dropped.length > 0) {
    throw new EditRefused(
      `unknown tool name(s) in --tools: ${result.dropped.join(', ')}; use cadre tool names (${BUILTIN_TOOL_NAMES.join(', ')}), Claude Code, Reasonix or bnerd names (${[...FOREIGN_TOOL_NAMES.keys()].join(', ')}) or mcp__<server>__<tool>`,
    );
  }
  if (result.unavailable.length > 0) {
    throw new EditRefused(
      `--tools names Claude Code team tools a cadre subagent cannot have: ${result.unavailable.join(', ')}; leave them out`,
    );
  }
  return result.tools;
}

/** A display colour is one word (a name such as `orange`, or `#ff8800`). */
export function checkColor(value: string): string {
  const trimmed = value.trim();
  if (!/^#?[A-Za-z0-9_-]{1,32}$/.test(trimmed)) {
    throw new EditRefused(`invalid --color "${value}": give one word such as orange or #ff8800`);
  }
  return trimmed;
}
