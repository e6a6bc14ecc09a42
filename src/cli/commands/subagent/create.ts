import { join } from 'node:path';
import { type ManagedValue, renderProfileFile } from '../../../profile/manage/frontmatter-text.js';
import {
  checkColor,
  checkDescription,
  checkEffort,
  checkNewName,
  checkTools,
  EditRefused,
  modelNote,
  profilePlaces,
} from '../../../profile/manage/inputs.js';
import { WRITER_TOOLS } from '../../../tool/names.js';
import { writeFileAtomic } from '../../../util/write-file.js';
import { openWorkspace } from '../../bootstrap.js';
import { checkLoads } from './check-loads.js';
import { insideProject, note, openProject, readPromptInput } from './context.js';

export interface CreateOptions {
  description?: string;
  prompt?: string;
  promptFile?: string;
  scope?: 'project' | 'global';
  model?: string;
  effort?: string;
  tools?: string;
  readOnly?: boolean;
  color?: string;
  dir?: string;
  cwd?: string;
}

/**
 * `cadre subagent create <name>` (SPEC 11): writes `<scope dir>/skills/<name>/SKILL.md` as a manual
 * `runAs: subagent` skill. Every check runs before anything is written.
 */
export async function runCreateCommand(name: string, options: CreateOptions): Promise<number> {
  const workspace = openProject(options);
  const { config, projectRoot, globalDir } = workspace.loaded;
  checkNewName(name, workspace.profiles, profilePlaces(projectRoot, globalDir, name), config);
  if (options.description === undefined || options.description.trim() === '') {
    throw new EditRefused('missing --description TEXT: one line saying what the profile is for');
  }
  const fields: [string, ManagedValue][] = [
    ['name', name],
    ['description', checkDescription(options.description)],
  ];
  if (options.color) fields.push(['color', checkColor(options.color)]);
  fields.push(['invocation', 'manual'], ['runAs', 'subagent']);
  const notes: string[] = [];
  if (options.model) {
    const literal = modelNote(options.model, config);
    if (literal) notes.push(literal);
    fields.push(['model', options.model]);
  }
  if (options.effort) fields.push(['effort', checkEffort(options.effort)]);
  const tools = options.tools ? checkTools(options.tools) : undefined;
  if (options.readOnly) {
    fields.push(['read-only', true]);
    const stripped = tools?.filter((t) => (WRITER_TOOLS as readonly string[]).includes(t)) ?? [];
    if (stripped.length > 0) notes.push(`--read-only strips ${stripped.join(', ')} from the allowed tools`);
  }
  if (tools) fields.push(['allowed-tools', tools]);
  const prompt = readPromptInput(options, true);
  if (prompt === undefined) {
    throw new EditRefused(
      'missing prompt: give --prompt TEXT, --prompt-file PATH (- for standard input), or pipe it on standard input',
    );
  }

  const scope = options.scope ?? (insideProject(workspace) ? 'project' : 'global');
  const dir = scope === 'project' ? join(projectRoot, '.cadre', 'skills') : join(globalDir, 'skills');
  const path = join(dir, name, 'SKILL.md');
  const text = renderProfileFile(fields, prompt);
  checkLoads(text, { name, path, source: scope === 'project' ? 'project-skill' : 'global-skill' });
  writeFileAtomic(path, text);

  for (const message of notes) note(message);
  const created = openWorkspace(workspace.cwd, workspace.env).profiles.profiles.get(name);
  process.stdout.write(`created ${name} (${scope} scope, ${created?.tier ?? 'unknown'} tier): ${path}\n`);
  return 0;
}
