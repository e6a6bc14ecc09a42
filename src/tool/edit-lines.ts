import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { joinLines, looksBinary, splitLines } from './text.js';
import type { Tool } from './tool.js';
import { readChecked, writeChecked } from './write-checked.js';

const schema = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe('File to edit, relative to the project root or absolute'),
    start_line: z.number().int().min(1).describe('First line to replace, 1-based'),
    end_line: z
      .number()
      .int()
      .min(0)
      .describe(
        'Last line to replace, inclusive; start_line - 1 inserts before start_line without replacing',
      ),
    content: z.string().describe('New text for the range; empty deletes the lines'),
  }),
);

export type EditLinesInput = z.output<typeof schema>;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function contentLines(content: string): string[] {
  if (content === '') return [];
  return content.replace(/\r?\n$/, '').split(/\r?\n/);
}

export function createEditLinesTool(root: string): Tool<EditLinesInput> {
  return {
    name: 'edit_lines',
    description:
      'Replace lines start_line..end_line (1-based, inclusive) of a file with content. Line numbers as shown by read.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.edit_lines,
    safety: 'write',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path)] }),
    async execute(input) {
      const absolute = resolveToolPath(root, input.path);
      const shownPath = displayPath(root, absolute);
      let bytes: Buffer;
      try {
        bytes = await readChecked(absolute);
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
      if (looksBinary(bytes)) return fail(`${shownPath} is a binary file; not edited`);
      const file = splitLines(bytes.toString('utf8'));
      const { start_line: start, end_line: end } = input;
      const count = file.lines.length;
      if (end < start - 1) return fail(`bad line range ${start}-${end}: end_line is before start_line`);
      const inserting = end === start - 1;
      if (inserting ? start > count + 1 : end > count) {
        return fail(`bad line range ${start}-${end}: ${shownPath} has ${plural(count, 'line')}`);
      }
      const replacement = contentLines(input.content);
      file.lines.splice(start - 1, end - start + 1, ...replacement);
      // A file that gains its first lines gets a trailing newline, as editors write them.
      const trailingNewline = file.trailingNewline || count === 0;
      try {
        await writeChecked(absolute, joinLines(file.lines, file.eol, trailingNewline));
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
      const added = plural(replacement.length, 'line');
      const change = inserting
        ? `inserted ${added} before line ${start}`
        : `replaced lines ${start}-${end} with ${added}`;
      return ok(`${shownPath}: ${change}; it now has ${plural(file.lines.length, 'line')}`);
    },
  };
}
