import { type FileHandle, stat } from 'node:fs/promises';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { forEachLine, LINE_CHUNK_BYTES } from './file-lines.js';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { openChecked, readSmallChecked } from './write-checked.js';

const DEFAULT_LIMIT = 2000;
const MAX_LIMIT = 10_000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 100_000;
/** Beyond this size the rest of the file is not scanned just to count its lines. */
const COUNT_ALL_LINES_UP_TO_BYTES = 16 * 1024 * 1024;

const schema = lazySchema(() =>
  z.object({
    path: z.string().min(1).describe('File path, relative to the project root or absolute'),
    offset: z.number().int().min(1).optional().describe('First line to show, 1-based (default 1)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .optional()
      .describe(`Maximum number of lines to show (default ${DEFAULT_LIMIT})`),
  }),
);

export type ReadInput = z.output<typeof schema>;

interface Page {
  shown: string[];
  lastShown: number;
  /** Total line count, unless the file was too large to count. */
  total: number | undefined;
  stoppedForSize: boolean;
}

/**
 * What the tool reads: a file of at most one chunk read whole on cadre's thread (readSmallChecked, issue
 * 17: through the thread pool its open, check, stat, reads and close were six round trips), or an open
 * FileHandle.
 */
type ReadSource = { whole: Buffer; size: number } | { handle: FileHandle };

async function readPage(
  source: ReadSource,
  head: Uint8Array,
  first: number,
  limit: number,
  countAll: boolean,
): Promise<Page> {
  const shown: string[] = [];
  let lineNumber = 0;
  let chars = 0;
  let stoppedForSize = false;
  let complete = true;
  await forEachLine('handle' in source ? source.handle : null, head, (line) => {
    lineNumber++;
    if (lineNumber < first) return true;
    const full = shown.length >= limit || stoppedForSize;
    if (full && !countAll) {
      complete = false;
      return false;
    }
    if (full) return true;
    const clipped =
      line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line;
    const rendered = `${String(lineNumber).padStart(6)}\t${clipped}`;
    if (chars + rendered.length > MAX_OUTPUT_CHARS && shown.length > 0) {
      stoppedForSize = true;
      return true;
    }
    chars += rendered.length + 1;
    shown.push(rendered);
    return true;
  });
  return {
    shown,
    lastShown: first + shown.length - 1,
    total: complete ? lineNumber : undefined,
    stoppedForSize,
  };
}

function isDirectoryRefusal(shownPath: string): { refusal: string } {
  return { refusal: `${shownPath} is a directory; use list_dir to see its entries` };
}

/** The file's size and opening bytes (its first chunk), or why it is not shown. */
async function inspect(
  source: ReadSource,
  shownPath: string,
): Promise<{ size: number; head: Uint8Array } | { refusal: string }> {
  let size: number;
  let head: Uint8Array;
  if ('whole' in source) ({ size, whole: head } = source);
  else {
    const info = await source.handle.stat();
    if (info.isDirectory()) return isDirectoryRefusal(shownPath);
    size = info.size;
    // Unzeroed: only the bytes read into it are looked at.
    const buffer = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
    const { bytesRead } = await source.handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  }
  if (looksBinary(head)) return { refusal: `${shownPath} is a binary file (${size} bytes); not shown` };
  return { size, head };
}

/**
 * Opens the file checked. When that fails, the answer is the one a stat would give first (a missing file,
 * a directory the user may not open), else the open's own error.
 */
async function openForRead(absolute: string, shownPath: string): Promise<ReadSource | { refusal: string }> {
  try {
    return { handle: await openChecked(absolute) };
  } catch (error) {
    const info = await stat(absolute).catch((statError: unknown) => ({ statError }));
    if ('statError' in info) return { refusal: describeFsError(info.statError, shownPath) };
    if (info.isDirectory()) return isDirectoryRefusal(shownPath);
    return { refusal: describeFsError(error, shownPath) };
  }
}

export function createReadTool(root: string): Tool<ReadInput> {
  return {
    name: 'read',
    description:
      'Read a text file with line numbers. Pages long files: pass offset and limit (lines) to continue. Refuses binary files.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.read,
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path)] }),
    async execute(input) {
      const absolute = resolveToolPath(root, input.path);
      const shownPath = displayPath(root, absolute);
      const small = readSmallChecked(absolute, LINE_CHUNK_BYTES);
      const source = small
        ? { whole: small.bytes, size: small.size }
        : await openForRead(absolute, shownPath);
      if ('refusal' in source) return fail(source.refusal);
      let page: Page;
      const first = input.offset ?? 1;
      try {
        let file: Awaited<ReturnType<typeof inspect>>;
        try {
          file = await inspect(source, shownPath);
        } catch (error) {
          return fail(describeFsError(error, shownPath));
        }
        if ('refusal' in file) return fail(file.refusal);
        if (file.size === 0) return ok(`${shownPath} is empty`);
        page = await readPage(
          source,
          file.head,
          first,
          input.limit ?? DEFAULT_LIMIT,
          file.size <= COUNT_ALL_LINES_UP_TO_BYTES,
        );
      } finally {
        if ('handle' in source) await source.handle.close();
      }
      if (page.shown.length === 0) {
        return fail(`offset ${first} is past the end of ${shownPath} (${page.total ?? 'fewer'} lines)`);
      }
      const range = `lines ${first}-${page.lastShown}`;
      if (page.total === undefined) {
        return ok(
          `${page.shown.join('\n')}\n[showing ${range}; the file continues: read again with offset=${page.lastShown + 1}]`,
        );
      }
      if (page.lastShown < page.total) {
        const why = page.stoppedForSize ? ' (output size limit)' : '';
        return ok(
          `${page.shown.join('\n')}\n[showing ${range} of ${page.total}${why}; read again with offset=${page.lastShown + 1}]`,
        );
      }
      return ok(page.shown.join('\n'));
    },
  };
}
