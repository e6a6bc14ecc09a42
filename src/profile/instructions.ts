import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { readRegularTextFile } from '../util/read-text.js';
import type { LoadWarning } from './types.js';

/** One instructions file cadre put into the main agent's system prompt. */
export interface InstructionsFile {
  path: string;
  text: string;
}

/** Names read in each directory, the first present wins (CLAUDE.md only where there is no AGENTS.md). */
const NAMES = ['AGENTS.md', 'CLAUDE.md'];

function firstPresent(dir: string): string | undefined {
  return NAMES.map((name) => join(dir, name)).find((path) => existsSync(path));
}

/** The project root, then each directory down to `cwd` (when `cwd` is inside the project). */
function directoriesDown(projectRoot: string, cwd: string): string[] {
  const root = resolve(projectRoot);
  const rel = relative(root, resolve(cwd));
  if (rel === '' || rel.startsWith('..') || resolve(rel) === rel) return [root];
  const dirs = [root];
  for (const part of rel.split(sep)) dirs.push(join(dirs[dirs.length - 1], part));
  return dirs;
}

/**
 * Project instructions as Codex, opencode and Claude Code read them: the global file in the config
 * directory first, then `AGENTS.md` (or `CLAUDE.md`) from the project root down to the working directory,
 * so the most specific file comes last. An unreadable file is a warning, never fatal.
 */
export function loadInstructions(opts: { globalDir: string; projectRoot: string; cwd: string }): {
  files: InstructionsFile[];
  warnings: LoadWarning[];
} {
  const files: InstructionsFile[] = [];
  const warnings: LoadWarning[] = [];
  const candidates = [
    firstPresent(opts.globalDir),
    ...directoriesDown(opts.projectRoot, opts.cwd).map(firstPresent),
  ];
  for (const path of candidates) {
    if (path === undefined || files.some((f) => f.path === path)) continue;
    const read = readRegularTextFile(path);
    if (!read.ok) warnings.push({ path, reason: read.reason });
    else if (read.text.trim() !== '') files.push({ path, text: read.text.trim() });
  }
  return { files, warnings };
}

/** The system prompt section holding the files, each under its path. */
export function instructionsSection(files: readonly InstructionsFile[]): string {
  if (files.length === 0) return '';
  const parts = files.map((f) => `<instructions path="${f.path}">\n${f.text}\n</instructions>`);
  return `Project instructions (follow them; a later, more specific file wins over an earlier one):\n\n${parts.join('\n\n')}`;
}
