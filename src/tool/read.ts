import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { displayPath, resolveToolPath } from './paths.js';
import { describeFsError, fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { openChecked } from './write-checked.js';

const DEFAULT_LIMIT = 2000;
const MAX_LIMIT = 10_000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 100_000;
/** Beyond this size the rest of the file is not scanned just to count its lines. */
const COUNT_ALL_LINES_UP_TO_BYTES = 16 * 1024 * 1024;

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the project root or absolute'),
  offset: z.number().int().min(1).optional().describe('First line to show, 1-based (default 1)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`Maximum number of lines to show (default ${DEFAULT_LIMIT})`),
});

export type ReadInput = z.output<typeof schema>;

async function sniff(absolute: string): Promise<Uint8Array> {
  const handle = await openChecked(absolute);
  try {
    const buffer = new Uint8Array(8000);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

interface Page {
  shown: string[];
  lastShown: number;
  /** Total line count, unless the file was too large to count. */
  total: number | undefined;
  stoppedForSize: boolean;
}

async function readPage(absolute: string, first: number, limit: number, countAll: boolean): Promise<Page> {
  const stream = (await openChecked(absolute)).createReadStream({ encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const shown: string[] = [];
  let lineNumber = 0;
  let chars = 0;
  let stoppedForSize = false;
  let complete = true;
  for await (const line of lines) {
    lineNumber++;
    if (lineNumber < first) continue;
    const full = shown.length >= limit || stoppedForSize;
    if (full && !countAll) {
      complete = false;
      break;
    }
    if (full) continue;
    const clipped =
      line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line;
    const rendered = `${String(lineNumber).padStart(6)}\t${clipped}`;
    if (chars + rendered.length > MAX_OUTPUT_CHARS && shown.length > 0) {
      stoppedForSize = true;
      continue;
    }
    chars += rendered.length + 1;
    shown.push(rendered);
  }
  lines.close();
  // Stopping early leaves the rest of the file unread; release the descriptor now rather than at GC.
  stream.destroy();
  return {
    shown,
    lastShown: first + shown.length - 1,
    total: complete ? lineNumber : undefined,
    stoppedForSize,
  };
}

export function createReadTool(root: string): Tool<ReadInput> {
  return {
    name: 'read',
    description:
      'Read a text file with line numbers. Pages long files: pass offset and limit (lines) to continue. Refuses binary files.',
    schema,
    safety: 'read',
    subject: (input) => ({ kind: 'path', paths: [resolveToolPath(root, input.path)] }),
    async execute(input) {
      const absolute = resolveToolPath(root, input.path);
      const shownPath = displayPath(root, absolute);
      let size: number;
      try {
        const info = await stat(absolute);
        if (info.isDirectory()) return fail(`${shownPath} is a directory; use list_dir to see its entries`);
        size = info.size;
        if (looksBinary(await sniff(absolute)))
          return fail(`${shownPath} is a binary file (${size} bytes); not shown`);
      } catch (error) {
        return fail(describeFsError(error, shownPath));
      }
      if (size === 0) return ok(`${shownPath} is empty`);
      const first = input.offset ?? 1;
      const page = await readPage(
        absolute,
        first,
        input.limit ?? DEFAULT_LIMIT,
        size <= COUNT_ALL_LINES_UP_TO_BYTES,
      );
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
