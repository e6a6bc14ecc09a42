import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfigFile } from '../../../config/load.js';
import { type OverrideMap, setOverride } from '../../../profile/manage/config-overrides.js';
import { EDITOR_FIELDS, editTarget, FIELD_KEYS } from '../../../profile/manage/editable.js';
import { editFrontmatter, type ManagedValue, replaceBody } from '../../../profile/manage/frontmatter-text.js';
import {
  checkColor,
  checkDescription,
  checkEffort,
  checkTools,
  EditRefused,
  modelNote,
} from '../../../profile/manage/inputs.js';
import type { Profile } from '../../../profile/types.js';
import { writeFileAtomic } from '../../../util/write-file.js';
import type { Workspace } from '../../bootstrap.js';
import { checkLoads } from './check-loads.js';
import {
  insideProject,
  namedProfile,
  note,
  openProject,
  readProfileFile,
  readPromptInput,
} from './context.js';

export interface EditOptions {
  description?: string;
  prompt?: string;
  promptFile?: string;
  model?: string;
  effort?: string;
  tools?: string;
  color?: string;
  dir?: string;
  cwd?: string;
}

const FLAG_LIST = '--description, --prompt/--prompt-file, --model, --effort, --tools or --color';

/**
 * `cadre subagent edit <name>` (SPEC 11): changes only the fields given, an empty value clears one, and
 * every other byte of the file stays as it was. Built-ins take `--model`/`--effort` as config overrides.
 */
export async function runEditCommand(name: string, options: EditOptions): Promise<number> {
  const workspace = openProject(options);
  const profile = namedProfile(workspace, name);
  const given = EDITOR_FIELDS.filter((field) =>
    field === 'prompt'
      ? options.prompt !== undefined || options.promptFile !== undefined
      : options[field] !== undefined,
  );
  if (given.length === 0) {
    throw new EditRefused(
      `nothing to change: give ${FLAG_LIST} (an empty value such as --model= clears one)`,
    );
  }
  if (profile.source === 'builtin') return editBuiltin(workspace, profile, options, given);

  const { text, fields } = profile.path ? readProfileFile(profile.path) : { text: '', fields: {} };
  const target = editTarget(profile, fields);
  if (target.kind === 'refused') throw new EditRefused(target.reason);
  if (target.kind !== 'file') throw new EditRefused(`"${name}" cannot be edited`);

  const changes = new Map<string, ManagedValue | null>();
  const set = (field: keyof typeof FIELD_KEYS, value: ManagedValue | null) => {
    const keys = FIELD_KEYS[field];
    const present = keys.filter((key) => Object.hasOwn(fields, key));
    if (value === null) for (const key of present) changes.set(key, null);
    else changes.set(present[0] ?? keys[0], value);
  };
  if (options.description !== undefined)
    set('description', options.description === '' ? null : checkDescription(options.description));
  if (options.model !== undefined) {
    const literal = options.model === '' ? undefined : modelNote(options.model, workspace.loaded.config);
    if (literal) note(literal);
    set('model', options.model === '' ? null : options.model);
  }
  if (options.effort !== undefined) set('effort', options.effort === '' ? null : checkEffort(options.effort));
  if (options.tools !== undefined) set('tools', options.tools === '' ? null : checkTools(options.tools));
  if (options.color !== undefined) set('color', options.color === '' ? null : checkColor(options.color));
  const prompt = given.includes('prompt') ? readPromptInput(options, false) : undefined;
  if (given.includes('prompt') && prompt === undefined) {
    throw new EditRefused('the prompt is empty: give the system prompt text');
  }

  let edited = editFrontmatter(text, changes);
  if (prompt !== undefined) edited = replaceBody(edited, prompt);
  const result = checkLoads(edited, { name, path: target.path, source: profile.source });
  if (edited === text) {
    process.stdout.write(`${name} unchanged: ${target.path}\n`);
    return 0;
  }
  writeFileAtomic(target.path, edited);
  process.stdout.write(`updated ${name} (${given.join(', ')}; ${result.tier} tier): ${target.path}\n`);
  return 0;
}

/** Built-ins have no file: `--model`/`--effort` go to `subagent_models`/`subagent_efforts` (SPEC 3.4). */
function editBuiltin(
  workspace: Workspace,
  profile: Profile,
  options: EditOptions,
  given: readonly string[],
): number {
  const others = given.filter((field) => field !== 'model' && field !== 'effort');
  if (others.length > 0) {
    throw new EditRefused(
      `"${profile.name}" is a built-in profile: only --model and --effort can be changed (not ${others.map((f) => `--${f}`).join(', ')}); to change more, create a profile with another name`,
    );
  }
  const { loaded } = workspace;
  const path = insideProject(workspace)
    ? join(loaded.projectRoot, '.cadre', 'config.json')
    : join(loaded.globalDir, 'config.json');
  const original = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const overrides: [OverrideMap, string | undefined][] = [];
  if (options.model !== undefined) {
    const literal = options.model === '' ? undefined : modelNote(options.model, loaded.config);
    if (literal) note(literal);
    overrides.push(['subagent_models', options.model === '' ? undefined : options.model]);
  }
  if (options.effort !== undefined)
    overrides.push(['subagent_efforts', options.effort === '' ? undefined : checkEffort(options.effort)]);

  let text = original;
  for (const [map, value] of overrides) text = setOverride(text, map, profile.name, value);
  parseConfigFile(path, text);
  if (text !== original) writeFileAtomic(path, text);

  for (const [map, value] of overrides) {
    const key = `${map}.${profile.name}`;
    process.stdout.write(
      value === undefined ? `cleared ${key} in ${path}\n` : `set ${key} = ${value} in ${path}\n`,
    );
    if (value !== undefined) continue;
    const elsewhere = loaded.files.find(
      (f) => f.path !== path && Object.hasOwn(f.config[map] ?? {}, profile.name),
    );
    if (elsewhere) note(`${elsewhere.path} still sets ${key} = ${elsewhere.config[map]?.[profile.name]}`);
  }
  return 0;
}
