import { statSync } from 'node:fs';
import path from 'node:path';
import type { RE2JS } from 're2js';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { pathMatcher } from './glob-match.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { readListedFile, walkFiles } from './walk.js';

const MAX_MATCHES = 250;
const MAX_LINE_CHARS = 300;
/** Larger files are skipped (and named as skipped): they are almost always generated or data. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Skipped files named in the result; past this only their count. */
const MAX_SKIPPED_NAMED = 20;
/** Lines scanned between yields to the event loop, so timers and other agents keep running. */
const LINES_PER_SLICE = 2000;

const schema = lazySchema(() =>
  z.object({
    pattern: z
      .string()
      .min(1)
      .describe('Regular expression (RE2 syntax, matched in linear time: no lookaround or backreferences)'),
    path: z.string().min(1).optional().describe('File or directory to search (default: project root)'),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.tsx"'),
    ignore_case: z.boolean().optional().describe('Case-insensitive match (default false)'),
  }),
);

export type GrepInput = z.output<typeof schema>;

let engine: Promise<typeof RE2JS> | undefined;

/**
 * The RE2 engine (190 KB of JavaScript) loads with the first search, not with cadre (issue 17); a session
 * warms it while its first model call is in flight.
 */
export function loadGrepEngine(): Promise<typeof RE2JS> {
  engine ??= import('re2js').then((module) => module.RE2JS);
  return engine;
}

/** Patterns compiled lately, by flag and source: a session repeats its searches (issue 17). */
const compiled = new Map<string, RE2JS>();
const COMPILED_KEPT = 32;

/**
 * The model's pattern on RE2 (a linear-time engine): no pattern, however pathological (`(a+)+$`), can
 * backtrack for ever and block cadre, since tools run on the main event loop. A compiled pattern is
 * kept for the next search with it: compiling was a large part of a small tree's search.
 */
async function compile(pattern: string, ignoreCase: boolean): Promise<RE2JS | string> {
  const RE2 = await loadGrepEngine();
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  const known = compiled.get(key);
  if (known) return known;
  try {
    const regex = RE2.compile(pattern, ignoreCase ? RE2.CASE_INSENSITIVE : 0);
    if (compiled.size === COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, regex);
    return regex;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function* candidateFiles(start: string, root: string, signal: AbortSignal): AsyncGenerator<string> {
  if (statSync(start).isFile()) {
    yield start;
    return;
  }
  yield* walkFiles(start, { root, signal });
}

export function createGrepTool(root: string): Tool<GrepInput> {
  return {
    name: 'grep',
    description:
      'Search file contents with an RE2 regex (no lookaround or backreferences), honouring .gitignore; skips binaries and files over 4 MiB. Returns path:line: text.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.grep,
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path ?? '.')] }),
    warm: loadGrepEngine,
    async execute(input, ctx) {
      const regex = await compile(input.pattern, input.ignore_case ?? false);
      if (typeof regex === 'string')
        return fail(`invalid regular expression (RE2 syntax: no lookaround or backreferences): ${regex}`);
      const start = resolveToolPath(root, input.path ?? '.');
      const matchesGlob = input.glob ? pathMatcher(input.glob) : () => true;
      const matches: string[] = [];
      const skipped: string[] = [];
      let capped = false;
      try {
        for await (const file of candidateFiles(start, root, ctx.signal)) {
          const relativeToStart = path.relative(start, file).split(path.sep).join('/') || path.basename(file);
          if (!matchesGlob(relativeToStart)) continue;
          // Reads do not leave the thread: timers and other agents get their turn between files here.
          await nextTick();
          const read = readListedFile(file, MAX_FILE_BYTES);
          if (read === undefined || 'tooLarge' in read || looksBinary(read.bytes)) {
            if (read !== undefined && 'tooLarge' in read) skipped.push(displayPath(root, file));
            continue;
          }
          const shownPath = displayPath(root, file);
          const lines = read.bytes.toString('utf8').split(/\r?\n/);
          for (let index = 0; index < lines.length; index++) {
            if (index % LINES_PER_SLICE === LINES_PER_SLICE - 1) await nextTick();
            if (ctx.signal.aborted) break;
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
          await nextTick();
        }
      } catch (error) {
        return fail(describeFsError(error, displayPath(root, start)));
      }
      if (ctx.signal.aborted) return fail('grep aborted');
      const notes: string[] = [];
      if (capped) notes.push(`[results capped at ${MAX_MATCHES} matches; narrow the pattern, path or glob]`);
      if (skipped.length > 0) {
        const named = skipped.slice(0, MAX_SKIPPED_NAMED).join(', ');
        const more =
          skipped.length > MAX_SKIPPED_NAMED ? ` and ${skipped.length - MAX_SKIPPED_NAMED} more` : '';
        notes.push(`[skipped ${skipped.length} file(s) over 4 MiB: ${named}${more}]`);
      }
      const body = matches.length === 0 ? 'No matches.' : matches.join('\n');
      return ok([body, ...notes].join('\n'));
    },
  };
}
