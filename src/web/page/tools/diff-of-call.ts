import { parsePatch, structuredPatch } from 'diff';

export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'hunk';
  text: string;
}

export interface FileDiff {
  path: string;
  lines: DiffLine[];
}

type Hunk = { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] };

function linesOf(hunks: readonly Hunk[]): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const hunk of hunks) {
    lines.push({
      kind: 'hunk',
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue;
      const kind = line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'ctx';
      lines.push({ kind, text: line.slice(1) });
    }
  }
  return lines;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * What a file-changing tool call does to its files, as diffs drawn from the call's own input: `edit` as
 * old text against new, `write` as the new content, `edit_lines` as the replaced range's new lines,
 * `apply_patch` as its patch. Undefined for a call that changes no file (or whose input does not fit).
 */
export function diffOfCall(tool: string, input: unknown): FileDiff[] | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const fields = input as Record<string, unknown>;
  const path = text(fields.path) ?? '';
  switch (tool) {
    case 'edit': {
      const before = text(fields.old_string);
      const after = text(fields.new_string);
      if (before === undefined || after === undefined) return undefined;
      return [
        { path, lines: linesOf(structuredPatch(path, path, before, after, '', '', { context: 3 }).hunks) },
      ];
    }
    case 'write': {
      const content = text(fields.content);
      if (content === undefined) return undefined;
      return [{ path, lines: content.split('\n').map((line) => ({ kind: 'add' as const, text: line })) }];
    }
    case 'edit_lines': {
      const content = text(fields.content);
      const start = typeof fields.start_line === 'number' ? fields.start_line : undefined;
      const end = typeof fields.end_line === 'number' ? fields.end_line : undefined;
      if (content === undefined || start === undefined || end === undefined) return undefined;
      const added = content === '' ? [] : content.replace(/\n$/, '').split('\n');
      const replaced = Math.max(0, end - start + 1);
      return [
        {
          path,
          lines: [
            { kind: 'hunk', text: `lines ${start}–${end} (${replaced} replaced) become:` },
            ...added.map((line) => ({ kind: 'add' as const, text: line })),
          ],
        },
      ];
    }
    case 'apply_patch': {
      const patch = text(fields.patch);
      if (patch === undefined) return undefined;
      try {
        return parsePatch(patch).map((file) => ({
          path:
            (file.newFileName === '/dev/null' ? file.oldFileName : file.newFileName)?.replace(
              /^[ab]\//,
              '',
            ) ?? '',
          lines: linesOf(file.hunks),
        }));
      } catch {
        return [{ path: '', lines: patch.split('\n').map((line) => ({ kind: 'ctx' as const, text: line })) }];
      }
    }
    default:
      return undefined;
  }
}
