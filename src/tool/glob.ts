import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { pathMatcher } from './glob-match.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import type { Tool } from './tool.js';
import { walkFiles } from './walk.js';

const MAX_RESULTS = 500;

const schema = lazySchema(() =>
  z.object({
    pattern: z
      .string()
      .min(1)
      .describe('Glob such as "**/*.ts" or "src/*.json"; without a slash it matches file names at any depth'),
    path: z.string().min(1).optional().describe('Directory to search (default: project root)'),
  }),
);

export type GlobInput = z.output<typeof schema>;

const DESCRIPTION =
  'Find files by glob pattern, relative to path (respects .gitignore). Returns matching paths, sorted.';

function createGlobLikeTool(name: 'glob' | 'find_files', root: string): Tool<GlobInput> {
  return {
    name,
    description: DESCRIPTION,
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS[name],
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path ?? '.')] }),
    async execute(input, ctx) {
      const start = resolveToolPath(root, input.path ?? '.');
      const shownStart = displayPath(root, start);
      try {
        if (!(await stat(start)).isDirectory()) return fail(`${shownStart} is not a directory`);
      } catch (error) {
        return fail(describeFsError(error, shownStart));
      }
      const matches = pathMatcher(input.pattern);
      const found: string[] = [];
      let capped = false;
      for await (const file of walkFiles(start, { root, signal: ctx.signal })) {
        if (!matches(path.relative(start, file).split(path.sep).join('/'))) continue;
        if (found.length === MAX_RESULTS) {
          capped = true;
          break;
        }
        found.push(displayPath(root, file));
      }
      if (ctx.signal.aborted) return fail(`${name} aborted`);
      if (found.length === 0) return ok('No files found.');
      const note = capped ? `\n[results capped at ${MAX_RESULTS} files; narrow the pattern or path]` : '';
      return ok(found.join('\n') + note);
    },
  };
}

export function createGlobTool(root: string): Tool<GlobInput> {
  return createGlobLikeTool('glob', root);
}

/** The same tool under its second name (SPEC 5). */
export function createFindFilesTool(root: string): Tool<GlobInput> {
  return createGlobLikeTool('find_files', root);
}
