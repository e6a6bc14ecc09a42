import { type Dirent, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseFrontmatter } from '../profile/frontmatter.js';
import { readTextFile } from '../profile/read-file.js';
import type { LoadWarning } from '../profile/types.js';
import type { SkillFile, SkillScope } from './types.js';

export interface SkillScan {
  files: SkillFile[];
  warnings: LoadWarning[];
}

function listFolders(skillsDir: string, warnings: LoadWarning[]): Dirent[] {
  try {
    return readdirSync(skillsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      warnings.push({ path: skillsDir, reason: `cannot read: ${code}` });
    return [];
  }
}

/** Reads every `<skillsDir>/<folder>/SKILL.md`; a folder without one is not a skill and is passed over. */
export function scanSkillDir(skillsDir: string, scope: SkillScope): SkillScan {
  const warnings: LoadWarning[] = [];
  const files: SkillFile[] = [];
  for (const folder of listFolders(skillsDir, warnings)) {
    const path = join(skillsDir, folder.name, 'SKILL.md');
    const read = readTextFile(path);
    if (!read.ok) {
      if (read.reason !== 'cannot read: ENOENT') warnings.push({ path, reason: read.reason });
      continue;
    }
    const parsed = parseFrontmatter(read.text);
    if (!parsed.ok) {
      warnings.push({ path, reason: parsed.reason });
      continue;
    }
    files.push({ folder: folder.name, path, text: read.text, scope, ...parsed.value });
  }
  return { files, warnings };
}

/** A skill with `runAs: subagent` is a profile, not a skill (SPEC 3.1). */
export function runsAsSubagent(file: SkillFile): boolean {
  return file.fields.runAs === 'subagent';
}
