import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFrontmatter } from '../../../profile/frontmatter.js';
import { profileNames } from '../../../profile/load.js';
import { EditRefused } from '../../../profile/manage/inputs.js';
import { readTextFile } from '../../../profile/read-file.js';
import type { Profile } from '../../../profile/types.js';
import { openWorkspace, printWarnings, type Workspace } from '../../bootstrap.js';

/** `--dir PATH` (or `--cwd`): the project the command works on. Load warnings go to stderr, as at every start. */
export function openProject(options: { dir?: string; cwd?: string; trustProject?: boolean }): Workspace {
  const dir = options.dir ?? options.cwd;
  if (dir !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new EditRefused(`${options.dir !== undefined ? '--dir' : '--cwd'} ${dir}: not a directory`);
  }
  const workspace = openWorkspace(dir, process.env, { trustProject: options.trustProject });
  printWarnings(workspace.warnings, process.stderr);
  return workspace;
}

/**
 * Whether the command runs inside a project: its root holds `.git` or `.cadre`. Outside one, `create` and
 * built-in overrides go to the global scope (SPEC 11).
 */
export function insideProject(workspace: Workspace): boolean {
  const root = workspace.loaded.projectRoot;
  return existsSync(join(root, '.git')) || existsSync(join(root, '.cadre'));
}

/** The profile a command names; an unknown name lists the known ones (SPEC 3.3). */
export function namedProfile(workspace: Workspace, name: string): Profile {
  const profile = workspace.profiles.profiles.get(name);
  if (profile) return profile;
  throw new EditRefused(
    `unknown profile "${name}"; known profiles: ${profileNames(workspace.profiles).join(', ')} (see cadre subagent list)`,
  );
}

/** A profile file's text and frontmatter, read again at the moment it is edited. */
export function readProfileFile(path: string): { text: string; fields: Record<string, unknown> } {
  const read = readTextFile(path);
  if (!read.ok) throw new EditRefused(`${path}: ${read.reason}`);
  const parsed = parseFrontmatter(read.text);
  if (!parsed.ok) throw new EditRefused(`${path}: ${parsed.reason}; edit the file directly`);
  return { text: read.text, fields: parsed.value.fields };
}

/**
 * The prompt from `--prompt TEXT`, `--prompt-file PATH` (`-`: standard input) or, where `stdin` is
 * allowed, piped standard input. Undefined when none was given.
 */
export function readPromptInput(
  options: { prompt?: string; promptFile?: string },
  stdin: boolean,
): string | undefined {
  if (options.prompt !== undefined && options.promptFile !== undefined) {
    throw new EditRefused('give the prompt either with --prompt or with --prompt-file, not both');
  }
  let text: string | undefined;
  if (options.prompt !== undefined) text = options.prompt;
  else if (options.promptFile === '-') text = readStandardInput('--prompt-file -');
  else if (options.promptFile !== undefined) {
    const path = resolve(options.promptFile);
    const read = readTextFile(path);
    if (!read.ok) throw new EditRefused(`cannot use --prompt-file ${options.promptFile}: ${read.reason}`);
    text = read.text;
  } else if (stdin && !process.stdin.isTTY) {
    text = readFileSync(0, 'utf8');
    if (text.trim() === '') return undefined;
  }
  if (text !== undefined && text.trim() === '') {
    throw new EditRefused('the prompt is empty: give the system prompt text');
  }
  return text?.trim();
}

function readStandardInput(flag: string): string {
  if (process.stdin.isTTY) throw new EditRefused(`${flag}: pipe the prompt on standard input`);
  return readFileSync(0, 'utf8');
}

/** One note on stderr: something the user should know, not a failure. */
export function note(message: string): void {
  process.stderr.write(`cadre: note: ${message}\n`);
}
