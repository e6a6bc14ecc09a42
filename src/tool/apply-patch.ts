import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { displayPath, resolveToolPath } from './paths.js';
import { fail, ok } from './result.js';
import { looksBinary } from './text.js';
import type { Tool } from './tool.js';
import { writeChecked } from './write-checked.js';

const DEV_NULL = '/dev/null';

const schema = lazySchema(() =>
  z.object({
    patch: z
      .string()
      .min(1)
      .describe(
        'Unified diff (as from `git diff` or `diff -u`) over one or more files; /dev/null creates or deletes',
      ),
  }),
);

export type ApplyPatchInput = z.output<typeof schema>;

/** One file's change with patch-relative names resolved: `from` is read, `to` is written. */
interface FileChange {
  kind: 'create' | 'delete' | 'modify' | 'rename';
  from?: string;
  to?: string;
  patch: StructuredPatch;
}

function hasChange(patch: StructuredPatch): boolean {
  return patch.hunks.length > 0 || Boolean(patch.isCreate || patch.isDelete || patch.isRename);
}

/** `a/` and `b/` are git's side prefixes, not directories, when both sides carry them (or it is a git diff). */
function patchNames(patch: StructuredPatch): { from?: string; to?: string } {
  const from = patch.oldFileName === DEV_NULL || patch.isCreate ? undefined : patch.oldFileName;
  const to = patch.newFileName === DEV_NULL || patch.isDelete ? undefined : patch.newFileName;
  const prefixed = patch.isGit || ((from ?? 'a/').startsWith('a/') && (to ?? 'b/').startsWith('b/'));
  const strip = (name: string | undefined) => (prefixed && name ? name.slice(2) : name);
  return { from: strip(from), to: strip(to) };
}

function planChanges(root: string, patchText: string): FileChange[] | string {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(patchText).filter(hasChange);
  } catch (error) {
    return `malformed patch: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (parsed.length === 0)
    return 'no file changes found in the patch (expected ---/+++ headers and @@ hunks)';
  const changes: FileChange[] = [];
  for (const patch of parsed) {
    const names = patchNames(patch);
    const from = names.from === undefined ? undefined : resolveToolPath(root, names.from);
    const to = names.to === undefined ? undefined : resolveToolPath(root, names.to);
    if (!from && !to) return 'a file in the patch has neither an old nor a new name';
    const kind = !from ? 'create' : !to ? 'delete' : from === to ? 'modify' : 'rename';
    changes.push({ kind, from, to, patch });
  }
  return changes;
}

function hunkHeader(hunk: StructuredPatchHunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

/** Applies hunk by hunk to name the first one that does not fit. */
function describeMismatch(source: string, patch: StructuredPatch): string {
  let current = source;
  for (const [index, hunk] of patch.hunks.entries()) {
    const next = applyPatch(current, { ...patch, hunks: [hunk] });
    if (next === false) return `hunk ${index + 1} (${hunkHeader(hunk)}) does not match the file`;
    current = next;
  }
  return 'the hunks do not apply together';
}

/** The state every touched file should end in: new text, or null for deleted. */
type Outcome = Map<string, string | null>;

async function currentText(outcome: Outcome, absolute: string): Promise<string | undefined> {
  if (outcome.has(absolute)) return outcome.get(absolute) ?? undefined;
  try {
    const bytes = await readFile(absolute);
    return looksBinary(bytes) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

async function computeOutcome(root: string, changes: FileChange[]): Promise<Outcome | string> {
  const outcome: Outcome = new Map();
  for (const change of changes) {
    const shown = (absolute: string) => displayPath(root, absolute);
    if (change.kind === 'create' && change.to) {
      if ((await currentText(outcome, change.to)) !== undefined) return `${shown(change.to)} already exists`;
      const created = applyPatch('', change.patch);
      if (created === false) return `cannot create ${shown(change.to)}: the hunks are not pure additions`;
      outcome.set(change.to, created);
      continue;
    }
    if (!change.from) continue;
    const source = await currentText(outcome, change.from);
    if (source === undefined) return `${shown(change.from)}: no such text file`;
    const patched = applyPatch(source, change.patch);
    if (patched === false) return `${shown(change.from)}: ${describeMismatch(source, change.patch)}`;
    if (change.kind === 'delete') {
      if (patched !== '') return `${shown(change.from)}: the deletion does not remove the whole file`;
      outcome.set(change.from, null);
    } else if (change.to) {
      if (change.kind === 'rename') outcome.set(change.from, null);
      outcome.set(change.to, patched);
    }
  }
  return outcome;
}

async function snapshot(absolute: string): Promise<Buffer | null> {
  return readFile(absolute).catch(() => null);
}

async function realise(absolute: string, content: string | Buffer | null): Promise<void> {
  if (content === null) {
    await rm(absolute, { force: true });
    return;
  }
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeChecked(absolute, content);
}

/** Writes every file, or on a failure restores the ones already written: the patch lands whole or not at all. */
async function commit(outcome: Outcome): Promise<void> {
  const originals = new Map<string, Buffer | null>();
  for (const absolute of outcome.keys()) originals.set(absolute, await snapshot(absolute));
  const done: string[] = [];
  try {
    for (const [absolute, content] of outcome) {
      await realise(absolute, content);
      done.push(absolute);
    }
  } catch (error) {
    for (const absolute of done)
      await realise(absolute, originals.get(absolute) ?? null).catch(() => undefined);
    throw error;
  }
}

function summaryLine(root: string, change: FileChange): string {
  const from = change.from ? displayPath(root, change.from) : '';
  const to = change.to ? displayPath(root, change.to) : '';
  switch (change.kind) {
    case 'create':
      return `A ${to}`;
    case 'delete':
      return `D ${from}`;
    case 'rename':
      return `R ${from} -> ${to}`;
    default:
      return `M ${to}`;
  }
}

export function createApplyPatchTool(root: string): Tool<ApplyPatchInput> {
  return {
    name: 'apply_patch',
    description:
      'Apply a unified diff to one or more files (create, modify, delete). All or nothing: if any hunk fails, no file changes.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.apply_patch,
    safety: 'write',
    subject(input) {
      const changes = planChanges(root, input.patch);
      if (typeof changes === 'string') return { kind: 'path', paths: [] };
      const paths = changes.flatMap((change) => [change.from, change.to]);
      return {
        kind: 'path',
        paths: [...new Set(paths.filter((name): name is string => name !== undefined))],
      };
    },
    async execute(input) {
      const changes = planChanges(root, input.patch);
      if (typeof changes === 'string') return fail(changes);
      const outcome = await computeOutcome(root, changes);
      if (typeof outcome === 'string') return fail(`patch not applied, no file changed: ${outcome}`);
      try {
        await commit(outcome);
      } catch (error) {
        return fail(
          `patch not applied, no file changed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return ok(`Patch applied:\n${changes.map((change) => summaryLine(root, change)).join('\n')}`);
    },
  };
}
