import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { pathMatcher } from './glob-match.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { walkFiles } from './walk.js';

const MAX_MATCHES = 250;
const MAX_LINE_CHARS = 300;
/** Larger files are skipped: they are almost always generated or data, and slow to scan. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const schema = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for'),
  path: z.string().min(1).optional().describe('File or directory to search (default: project root)'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.tsx"'),
  ignore_case: z.boolean().optional().describe('Case-insensitive match (default false)'),
});

export type GrepInput = z.output<typeof schema>;

function compile(pattern: string, ignoreCase: boolean): RegExp | string {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function* candidateFiles(start: string, root: string, signal: AbortSignal): AsyncGenerator<string> {
  if ((await stat(start)).isFile()) {
    yield start;
    return;
  }
  yield* walkFiles(start, { root, signal });
}

export function createGrepTool(root: string): Tool<GrepInput> {
  return {
    name: 'grep',
    description:
      'Search file contents with a JavaScript regex across the tree (respects .gitignore, skips binary files). Returns path:line: text.',
    schema,
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path ?? '.')] }),
    async execute(input, ctx) {
      const regex = compile(input.pattern, input.ignore_case ?? false);
      if (typeof regex === 'string') return fail(`invalid regular expression: ${regex}`);
      const start = resolveToolPath(root, input.path ?? '.');
      const matchesGlob = input.glob ? pathMatcher(input.glob) : () => true;
      const matches: string[] = [];
      let capped = false;
      try {
        for await (const file of candidateFiles(start, root, ctx.signal)) {
          const relativeToStart = path.relative(start, file).split(path.sep).join('/') || path.basename(file);
          if (!matchesGlob(relativeToStart)) continue;
          const bytes = await readFile(file).catch(() => undefined);
          if (!bytes || bytes.length > MAX_FILE_BYTES || looksBinary(bytes)) continue;
          const shownPath = displayPath(root, file);
          const lines = bytes.toString('utf8').split(/\r?\n/);
          for (let index = 0; index < lines.length; index++) {
            if (!regex.test(lines[index])) continue;
            if (matches.length === MAX_MATCHES) {
              capped = true;
              break;
            }
            const line = lines[index];
            const clipped = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
            matches.push(`${shownPath}:${index + 1}: ${clipped}`);
          }
          if (capped) break;
        }
      } catch (error) {
        return fail(describeFsError(error, displayPath(root, start)));
      }
      if (ctx.signal.aborted) return fail('grep aborted');
      if (matches.length === 0) return ok('No matches.');
      const note = capped
        ? `\n[results capped at ${MAX_MATCHES} matches; narrow the pattern, path or glob]`
        : '';
      return ok(matches.join('\n') + note);
    },
  };
}
