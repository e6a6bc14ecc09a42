import { basename, join } from 'node:path';
import { markdownFiles } from './file-source.js';
import { parseFrontmatter } from './frontmatter.js';
import { PROFILE_NAME_PATTERN } from './names.js';
import { readTextFile } from './read-file.js';
import { translateToolList } from './tool-lists.js';
import type { LoadWarning } from './types.js';

export const PROMPT_MODES = ['plan', 'review', 'default'] as const;
export type PromptMode = (typeof PROMPT_MODES)[number];

/** A `/prompt` file (SPEC 4.1). */
export interface PromptFile {
  name: string;
  source: 'project' | 'global';
  path: string;
  body: string;
  denyTools: string[];
  mode: PromptMode;
  description?: string;
}

export interface PromptSet {
  /** Project over global, sorted by name. */
  prompts: Map<string, PromptFile>;
  warnings: LoadWarning[];
}

const PROMPT_KEYS: ReadonlySet<string> = new Set(['deny_tools', 'mode', 'description']);
/** `/prompt default` clears the layer, so no file may take these names. */
const RESERVED_PROMPT_NAMES: ReadonlySet<string> = new Set(['default', 'off', 'none']);

type PromptResult = { ok: true; prompt: PromptFile; notes: string[] } | { ok: false; reason: string };

function readPrompt(path: string, source: PromptFile['source']): PromptResult {
  const name = basename(path, '.md');
  if (!PROFILE_NAME_PATTERN.test(name))
    return { ok: false, reason: `invalid name "${name}": must match ${PROFILE_NAME_PATTERN.source}` };
  if (RESERVED_PROMPT_NAMES.has(name.toLowerCase())) return { ok: false, reason: `reserved name "${name}"` };
  const read = readTextFile(path);
  if (!read.ok) return read;
  const parsed = parseFrontmatter(read.text);
  if (!parsed.ok) return parsed;
  const { fields, body } = parsed.value;
  const mode = fields.mode ?? 'default';
  if (typeof mode !== 'string' || !(PROMPT_MODES as readonly string[]).includes(mode)) {
    return { ok: false, reason: `invalid "mode" ${JSON.stringify(mode)} (expected plan, review or default)` };
  }
  if (fields.description !== undefined && typeof fields.description !== 'string') {
    return { ok: false, reason: '"description" must be a string' };
  }
  const notes: string[] = [...parsed.value.notes];
  let denyTools: string[] = [];
  if (fields.deny_tools !== undefined && fields.deny_tools !== null) {
    const denied = translateToolList(fields.deny_tools, 'deny_tools');
    if (!denied.ok) return { ok: false, reason: denied.reason };
    if (denied.dropped.length > 0)
      notes.push(`unknown tool name(s) in "deny_tools" dropped: ${denied.dropped.join(', ')}`);
    denyTools = denied.tools;
  }
  const unknown = Object.keys(fields).filter((k) => !PROMPT_KEYS.has(k));
  if (unknown.length > 0) notes.push(`unknown key(s) ignored: ${unknown.join(', ')}`);
  const prompt: PromptFile = {
    name,
    source,
    path,
    body,
    denyTools,
    mode: mode as PromptMode,
    description: typeof fields.description === 'string' ? fields.description.trim() : undefined,
  };
  return { ok: true, prompt, notes };
}

/** Loads `.cadre/prompts/*.md` and `$CADRE_CONFIG_DIR/prompts/*.md`; one warning per problem file. */
export function loadPrompts(opts: { projectRoot: string; globalDir: string }): PromptSet {
  const warnings: LoadWarning[] = [];
  const prompts = new Map<string, PromptFile>();
  const dirs: [string, PromptFile['source']][] = [
    [join(opts.projectRoot, '.cadre', 'prompts'), 'project'],
    [join(opts.globalDir, 'prompts'), 'global'],
  ];
  for (const [dir, source] of dirs) {
    for (const path of markdownFiles(dir, warnings)) {
      const result = readPrompt(path, source);
      if (!result.ok) {
        warnings.push({ path, reason: result.reason });
        continue;
      }
      if (result.notes.length > 0) warnings.push({ path, reason: result.notes.join('; ') });
      if (!prompts.has(result.prompt.name)) prompts.set(result.prompt.name, result.prompt);
    }
  }
  return { prompts: new Map([...prompts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))), warnings };
}
