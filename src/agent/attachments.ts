import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { StreamedToolCall } from './model-stream.js';
import type { ToolCallOutcome } from './tool-runner.js';

/** `@path` in a prompt: after a space or at the start, up to the next space; trailing punctuation is prose. */
const MENTION = /(?:^|\s)@(\S+)/g;

/**
 * The files a prompt attaches with `@path`, in order, each once: words that name an existing file (relative to
 * the project root, or absolute). Other `@words` (`@someone`) are left to the text.
 */
export function mentionedFiles(text: string, root: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const path = match[1].replace(/[.,;:!?)]+$/, '');
    if (found.includes(path)) continue;
    const absolute = isAbsolute(path) ? path : resolve(root, path);
    try {
      if (existsSync(absolute) && statSync(absolute).isFile()) found.push(path);
    } catch {
      // Unreadable metadata: not attached; the text keeps the word.
    }
  }
  return found;
}

/** One `read` call per attached file, as if the main agent had asked for it, so the gate decides each. */
export function attachmentCalls(paths: readonly string[]): StreamedToolCall[] {
  const nonce = randomBytes(4).toString('hex');
  return paths.map((path, i) => ({ id: `attach_${nonce}_${i}`, name: 'read', input: { path } }));
}

/** The prompt with the attached files after it; a file the gate refused says why instead of its content. */
export function withAttachments(text: string, outcomes: readonly ToolCallOutcome[]): string {
  if (outcomes.length === 0) return text;
  const blocks = outcomes.map(({ call, result }) => {
    const path = (call.input as { path: string }).path;
    return result.isError
      ? `<attachment path="${path}" status="not attached">\n${result.output}\n</attachment>`
      : `<attachment path="${path}">\n${result.output}\n</attachment>`;
  });
  return `${text}\n\n${blocks.join('\n\n')}`;
}
