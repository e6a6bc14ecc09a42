import type { Config } from '../config/schema.js';
import { buildProfile } from './build.js';
import type { FileOutcome } from './file-source.js';
import { profileNameProblem } from './names.js';
import { SUBAGENT_BLOCK_KEYS } from './schema.js';

type Flattened =
  | { ok: true; fields: Record<string, unknown>; notes: string[] }
  | { ok: false; reason: string };

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Rewrites the config form (`prompt`, nested `subagent`) into frontmatter keys. */
function flatten(entry: Record<string, unknown>): Flattened {
  const { prompt: _prompt, subagent, ...fields } = entry;
  const notes: string[] = [];
  if (subagent === undefined || subagent === null) return { ok: true, fields, notes };
  if (!isMapping(subagent)) return { ok: false, reason: '"subagent" must be an object' };
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(subagent)) {
    if (!Object.hasOwn(SUBAGENT_BLOCK_KEYS, key)) {
      unknown.push(`subagent.${key}`);
      continue;
    }
    const flat = SUBAGENT_BLOCK_KEYS[key as keyof typeof SUBAGENT_BLOCK_KEYS];
    if (fields[flat] !== undefined)
      return { ok: false, reason: `conflicting keys subagent.${key} and ${flat}: give only one` };
    fields[flat] = value;
  }
  if (unknown.length > 0) notes.push(`unknown key(s) ignored: ${unknown.join(', ')}`);
  return { ok: true, fields, notes };
}

/** Where a config profile's permission rules are cited from: the last config file that names it. */
function citationFor(
  name: string,
  files: readonly { path: string; text: string }[],
): { file: string; text: string } {
  const file = [...files].reverse().find((f) => f.text.includes(`"${name}"`));
  return file ? { file: file.path, text: file.text } : { file: 'config', text: '' };
}

/** Profiles in config form (`"agents": {…}`), each with its warning path `config:agents.<name>`. */
export function loadConfigProfiles(
  config: Config,
  files: readonly { path: string; text: string }[] = [],
): FileOutcome[] {
  return Object.entries(config.agents ?? {}).map(([name, entry]): FileOutcome => {
    const path = `config:agents.${name}`;
    const nameProblem = profileNameProblem(name);
    if (nameProblem) return { warning: { path, reason: nameProblem } };
    if (entry.prompt !== undefined && typeof entry.prompt !== 'string') {
      return { warning: { path, reason: '"prompt" must be a string' } };
    }
    const flat = flatten(entry);
    if (!flat.ok) return { warning: { path, reason: flat.reason } };
    const built = buildProfile({
      name,
      source: 'config',
      fields: flat.fields,
      body: typeof entry.prompt === 'string' ? entry.prompt.trim() : '',
      citation: citationFor(name, files),
    });
    if (!built.ok) return { warning: { path, reason: built.reason } };
    const notes = [...flat.notes, ...built.notes];
    return {
      profile: built.profile,
      warning: notes.length > 0 ? { path, reason: notes.join('; ') } : undefined,
    };
  });
}
