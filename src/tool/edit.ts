import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { readChecked, writeChecked } from './write-checked.js';

const schema = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe('File to edit, relative to the project root or absolute'),
    old_string: z
      .string()
      .min(1)
      .describe('Exact text to replace, including whitespace; must be unique unless replace_all'),
    new_string: z.string().describe('Replacement text'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
  }),
);

export type EditInput = z.output<typeof schema>;

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Models write "\n"; a CRLF file still matches when its line endings are adopted. */
function adaptLineEndings(text: string, input: EditInput): { oldString: string; newString: string } {
  const plain = { oldString: input.old_string, newString: input.new_string };
  if (!text.includes('\r\n') || input.old_string.includes('\r\n') || text.includes(input.old_string))
    return plain;
  const toCrlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
  return { oldString: toCrlf(input.old_string), newString: toCrlf(input.new_string) };
}

export function createEditTool(root: string): Tool<EditInput> {
  return {
    name: 'edit',
    description:
      'Replace exact text in a file. old_string must match exactly once, unless replace_all is set. Read the file first.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.edit,
    safety: 'write',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path)] }),
    async execute(input) {
      const absolute = resolveToolPath(root, input.path);
      const shownPath = displayPath(root, absolute);
      if (input.old_string === input.new_string)
        return fail('old_string and new_string are identical; nothing to do');
      let bytes: Buffer;
      try {
        bytes = await readChecked(absolute);
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
      if (looksBinary(bytes)) return fail(`${shownPath} is a binary file; not edited`);
      const text = bytes.toString('utf8');
      const { oldString, newString } = adaptLineEndings(text, input);
      const count = countOccurrences(text, oldString);
      if (count === 0)
        return fail(`old_string not found in ${shownPath}; read the file and copy the text exactly`);
      if (count > 1 && !input.replace_all) {
        return fail(
          `old_string matches ${count} times in ${shownPath}; add surrounding context to make it unique, or set replace_all`,
        );
      }
      try {
        await writeChecked(absolute, text.split(oldString).join(newString));
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
      return ok(`Replaced ${count} occurrence${count === 1 ? '' : 's'} in ${shownPath}`);
    },
  };
}
