import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SkillFile } from '../skill/types.js';
import { buildProfile } from './build.js';
import { parseFrontmatter } from './frontmatter.js';
import { isImportedSource } from './model-routing.js';
import { profileNameProblem } from './names.js';
import { readTextFile } from './read-file.js';
import type { LoadWarning, Profile, ProfileSource } from './types.js';

/** How a source names its profiles (SPEC 3.1). */
export type NameRule = 'stem' | 'name-required' | 'name-or-stem';

/** One file's outcome: a profile (maybe with a warning about it), or just the warning. */
export interface FileOutcome {
  profile?: Profile;
  warning?: LoadWarning;
}

/** The `*.md` files of a directory, sorted so loading is deterministic; a missing directory is empty. */
export function markdownFiles(dir: string, warnings: LoadWarning[]): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name.endsWith('.md'))
      .map((e) => e.name)
      .sort()
      .map((name) => join(dir, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push({ path: dir, reason: `cannot read: ${code}` });
    return [];
  }
}

function pickName(
  rule: NameRule,
  stem: string,
  declared: unknown,
): { name: string; note?: string } | { reason: string } {
  if (declared !== undefined && declared !== null && typeof declared !== 'string') {
    return { reason: '"name" must be a string' };
  }
  if (rule === 'name-required')
    return declared ? { name: declared } : { reason: 'missing "name" (required for mission roles)' };
  if (rule === 'name-or-stem') return { name: declared || stem };
  if (declared && declared !== stem) {
    return { name: stem, note: `"name: ${declared}" ignored: the profile is named after its file` };
  }
  return { name: stem };
}

interface Parsed {
  fields: Record<string, unknown>;
  body: string;
  text: string;
}

function finish(
  path: string,
  parsed: Parsed,
  name: string,
  source: ProfileSource,
  extraNotes: string[],
  extraKeys?: readonly string[],
): FileOutcome {
  const nameProblem = profileNameProblem(name);
  if (nameProblem) return { warning: { path, reason: nameProblem } };
  if (Object.keys(parsed.fields).length === 0 && parsed.body === '') {
    return { warning: { path, reason: 'empty profile: no frontmatter keys and no body' } };
  }
  const built = buildProfile({
    name,
    source,
    path,
    fields: parsed.fields,
    body: parsed.body,
    citation: { file: path, text: parsed.text },
    extraKeys,
  });
  if (!built.ok) return { warning: { path, reason: built.reason } };
  const notes = [...extraNotes, ...built.notes];
  return {
    profile: built.profile,
    warning: notes.length > 0 ? { path, reason: notes.join('; ') } : undefined,
  };
}

/** Loads one agent/role markdown file. Every failure becomes exactly one warning. */
export function loadProfileFile(path: string, source: ProfileSource, rule: NameRule): FileOutcome {
  const read = readTextFile(path);
  if (!read.ok) return { warning: { path, reason: read.reason } };
  const parsed = parseFrontmatter(read.text, isImportedSource(source));
  if (!parsed.ok) return { warning: { path, reason: parsed.reason } };
  const picked = pickName(rule, basename(path, '.md'), parsed.value.fields.name);
  if ('reason' in picked) return { warning: { path, reason: picked.reason } };
  return finish(
    path,
    { ...parsed.value, text: read.text },
    picked.name,
    source,
    picked.note ? [picked.note, ...parsed.value.notes] : parsed.value.notes,
  );
}

/** A skill with `runAs: subagent` as a profile: `name`, when given, must equal its folder (SPEC 3.2). */
export function loadSkillProfile(file: SkillFile, source: ProfileSource): FileOutcome {
  const declared = file.fields.name;
  if (declared !== undefined && declared !== file.folder) {
    return {
      warning: {
        path: file.path,
        reason: `name ${JSON.stringify(declared)} does not match its folder "${file.folder}"`,
      },
    };
  }
  return finish(file.path, file, file.folder, source, file.notes, ['applies_to']);
}
