import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Diff, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { describeCall } from '../agent/describe-call.js';
import { toolByName } from '../tool/registry.js';

/** How an editor should draw a cadre tool (ACP `ToolKind`). */
const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list_dir: 'read',
  repo_overview: 'read',
  skill: 'read',
  grep: 'search',
  glob: 'search',
  find_files: 'search',
  write: 'edit',
  edit: 'edit',
  edit_lines: 'edit',
  apply_patch: 'edit',
  bash: 'execute',
  bash_output: 'execute',
  kill_shell: 'execute',
  webfetch: 'fetch',
  websearch: 'fetch',
  write_todo_list: 'think',
  plan_enter: 'switch_mode',
  plan_exit: 'switch_mode',
};

/** Tools whose successful calls change files: their updates carry the diff. */
const FILE_WRITERS: ReadonlySet<string> = new Set(['write', 'edit', 'edit_lines', 'apply_patch']);

/** Larger files are not copied into diffs. */
const MAX_DIFF_BYTES = 1024 * 1024;

export function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? 'other';
}

/** `edit src/a.ts`, prefixed by the chain for a subagent's call: `main › researcher: read x`. */
export function toolTitle(tool: string, input: unknown, label: string): string {
  const call = describeCall(tool, input);
  return label === 'main' ? call : `${label}: ${call}`;
}

/** The files a call touches, absolute, as the permission engine sees them (inside or outside the root). */
export function touchedPaths(tool: string, input: unknown, root: string): string[] {
  const definition = toolByName(tool, root);
  if (!definition || input === null || typeof input !== 'object') return [];
  try {
    const subject = definition.subject(input);
    if (subject.kind !== 'path') return [];
    return subject.paths.map((p) => (isAbsolute(p) ? p : resolve(root, p)));
  } catch {
    return [];
  }
}

export function toolLocations(tool: string, input: unknown, root: string): ToolCallLocation[] {
  const record = (input ?? {}) as Record<string, unknown>;
  const line =
    typeof record.start_line === 'number'
      ? record.start_line
      : typeof record.offset === 'number'
        ? record.offset
        : undefined;
  return touchedPaths(tool, input, root).map((path) => (line === undefined ? { path } : { path, line }));
}

/** The text of a file before a write, or null when it does not exist (or is not ours to copy). */
function readForDiff(path: string, root: string): string | null {
  const inside = relative(root, path);
  if (inside.startsWith('..') || isAbsolute(inside)) return null;
  try {
    if (statSync(path).size > MAX_DIFF_BYTES) return null;
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Contents of the files a writer will touch, taken before it runs. */
export function snapshotFiles(tool: string, input: unknown, root: string): Map<string, string | null> {
  const files = new Map<string, string | null>();
  if (!FILE_WRITERS.has(tool)) return files;
  for (const path of touchedPaths(tool, input, root)) files.set(path, readForDiff(path, root));
  return files;
}

/** What a writer is about to do, for the permission request: the change as the model described it. */
export function proposedContent(tool: string, input: unknown, root: string): ToolCallContent[] {
  const record = (input ?? {}) as Record<string, unknown>;
  const [path] = touchedPaths(tool, input, root);
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  switch (tool) {
    case 'write':
      return path ? [diff({ path, oldText: readForDiff(path, root), newText: text(record.content) })] : [];
    case 'edit':
      return path ? [diff({ path, oldText: text(record.old_string), newText: text(record.new_string) })] : [];
    case 'edit_lines': {
      const old = path ? readForDiff(path, root) : null;
      const start = Number(record.start_line);
      const end = Number(record.end_line);
      const lines =
        old
          ?.split('\n')
          .slice(start - 1, end)
          .join('\n') ?? null;
      return path ? [diff({ path, oldText: lines, newText: text(record.content) })] : [];
    }
    case 'apply_patch':
      return [textContent(`\`\`\`diff\n${text(record.patch)}\n\`\`\``)];
    default:
      return [];
  }
}

/** The real change of a finished writer: each touched file before and after. */
export function appliedDiffs(
  tool: string,
  before: Map<string, string | null>,
  root: string,
): ToolCallContent[] {
  if (!FILE_WRITERS.has(tool)) return [];
  const diffs: ToolCallContent[] = [];
  for (const [path, oldText] of before) {
    const newText = readForDiff(path, root) ?? '';
    if (newText !== oldText) diffs.push(diff({ path, oldText, newText }));
  }
  return diffs;
}

export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

function diff(d: Diff): ToolCallContent {
  return { type: 'diff', ...d };
}
