import type { Dirent } from 'node:fs';
import { readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import type { Tool } from './tool.js';

const MAX_ENTRIES = 1000;

const schema = lazySchema(() =>
  z.object({
    path: z.string().min(1).optional().describe('Directory to list (default: project root)'),
  }),
);

export type ListDirInput = z.output<typeof schema>;

async function describeEntry(dir: string, entry: Dirent): Promise<string> {
  const absolute = path.join(dir, entry.name);
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) {
    const target = await readlink(absolute).catch(() => '?');
    return `${entry.name} -> ${target}`;
  }
  const size = await stat(absolute).then(
    (info) => info.size,
    () => undefined,
  );
  return size === undefined ? entry.name : `${entry.name} (${size} bytes)`;
}

export function createListDirTool(root: string): Tool<ListDirInput> {
  return {
    name: 'list_dir',
    description:
      'List one directory: subdirectories end in "/", files show their size, symlinks their target.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.list_dir,
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path ?? '.')] }),
    async execute(input) {
      const dir = resolveToolPath(root, input.path ?? '.');
      const shownDir = displayPath(root, dir);
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        return fail(describeFsError(error, shownDir));
      }
      if (entries.length === 0) return ok(`${shownDir} is empty`);
      entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : 1));
      const shown = await Promise.all(
        entries.slice(0, MAX_ENTRIES).map((entry) => describeEntry(dir, entry)),
      );
      const note =
        entries.length > MAX_ENTRIES
          ? `\n[${entries.length - MAX_ENTRIES} more entries not shown; use glob]`
          : '';
      return ok(shown.join('\n') + note);
    },
  };
}
