import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import type { Tool } from './tool.js';
import { writeChecked } from './write-checked.js';

const schema = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe('File to create or overwrite, relative to the project root or absolute'),
    content: z.string().describe('The complete new file content'),
  }),
);

export type WriteInput = z.output<typeof schema>;

export function createWriteTool(root: string): Tool<WriteInput> {
  return {
    name: 'write',
    description: 'Create or overwrite a file with the given content; parent directories are created.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.write,
    safety: 'write',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path)] }),
    async execute(input) {
      const absolute = resolveToolPath(root, input.path);
      const shownPath = displayPath(root, absolute);
      try {
        const existing = await stat(absolute).catch(() => undefined);
        if (existing?.isDirectory()) return fail(`${shownPath} is a directory`);
        await mkdir(path.dirname(absolute), { recursive: true });
        await writeChecked(absolute, input.content);
        const bytes = Buffer.byteLength(input.content);
        return ok(`${existing ? 'Overwrote' : 'Created'} ${shownPath} (${bytes} bytes)`);
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
    },
  };
}
