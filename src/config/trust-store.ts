import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { readRegularTextFile } from '../util/read-text.js';
import { writeFileAtomic } from '../util/write-file.js';
import { formattingOf } from './jsonc-format.js';
import { ConfigError, parseConfigFile } from './load.js';
import { realRoot } from './trust.js';

/**
 * The trusted roots live in the global config's `trusted_roots` (issue 15 point 6d). Edits go into the
 * file's text in place, so the user's comments and formatting survive; a file that does not parse is
 * never rewritten.
 */

export function globalConfigFile(globalDir: string): string {
  return join(globalDir, 'config.json');
}

interface GlobalText {
  path: string;
  text: string;
  roots: string[];
}

/** The global config's text and trusted roots; a malformed file is a ConfigError naming it. */
export function readTrustedRoots(path: string): GlobalText {
  if (!existsSync(path)) return { path, text: '', roots: [] };
  const read = readRegularTextFile(path);
  if (!read.ok) throw new ConfigError(`${path}: ${read.reason}`);
  const config = parseConfigFile(path, read.text);
  return { path, text: read.text, roots: config.trusted_roots ?? [] };
}

/** Checked before writing, so a refusal loses nothing and says which file. */
function writeChecked(path: string, text: string): void {
  parseConfigFile(path, text);
  try {
    if (existsSync(path)) accessSync(path, constants.W_OK);
    writeFileAtomic(path, text);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`cannot write ${path} (${reason}); nothing was changed`);
  }
}

/** Appends `root` (a real path) unless it is listed already. Returns whether the file changed. */
export function addTrustedRoot(path: string, root: string): boolean {
  const current = readTrustedRoots(path);
  if (current.roots.some((listed) => realRoot(listed) === root)) return false;
  const base = current.text.trim() === '' ? '{}\n' : current.text;
  const formattingOptions = formattingOf(base);
  const edits =
    current.roots.length === 0
      ? modify(base, ['trusted_roots'], [root], { formattingOptions })
      : modify(base, ['trusted_roots', -1], root, { formattingOptions, isArrayInsertion: true });
  writeChecked(path, applyEdits(base, edits));
  return true;
}

/** Removes every entry that is `root` (compared as real paths). Returns the entries removed. */
export function removeTrustedRoot(path: string, root: string): string[] {
  const current = readTrustedRoots(path);
  const indexes = current.roots
    .map((listed, index) => ({ listed, index }))
    .filter(({ listed }) => listed === root || realRoot(listed) === root);
  if (indexes.length === 0) return [];
  let text = current.text;
  // From the last, so earlier indexes stay valid.
  for (const { index } of [...indexes].reverse()) {
    text = applyEdits(
      text,
      modify(text, ['trusted_roots', index], undefined, { formattingOptions: formattingOf(text) }),
    );
  }
  writeChecked(path, text);
  return indexes.map(({ listed }) => listed);
}
