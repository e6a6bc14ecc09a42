import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { EFFORTS } from '../provider/route.js';
import { lazySchema } from '../util/lazy-schema.js';

/** One item of a `fleet` (SPEC 10). No profile names appear in the schema (prompt-cache stability). */
export const FleetItemSchema = z.object({
  id: z.string().min(1).max(64).describe('A short unique name for this item, used by depends_on.'),
  prompt: z.string().min(1).describe('The complete task for this subagent.'),
  agent: z.string().optional().describe('The profile to run (see the task tool for the list).'),
  profile: z.string().optional().describe('Same as agent.'),
  depends_on: z.array(z.string()).optional().describe('Ids of items that must complete first.'),
  write_paths: z
    .array(z.string())
    .optional()
    .describe(
      'Files (or directories, ending in /) this item will write; items with disjoint files run together.',
    ),
  read_only: z.boolean().optional().describe('Run with read-only tools whatever the profile allows.'),
  tools: z.array(z.string()).optional().describe('Narrow the tool set to these names.'),
  max_steps: z.number().int().min(1).max(500).optional().describe('Cap on this item tool loop turns.'),
  model: z.string().optional().describe('A providers alias or model name for this item.'),
  effort: z.enum(EFFORTS).optional().describe('Reasoning effort for this item.'),
});
export type FleetItem = z.infer<typeof FleetItemSchema>;

export const FleetInputSchema = lazySchema(() =>
  z.object({
    tasks: z.array(FleetItemSchema).min(2).max(64).describe('The items: 2 to 64 subagent tasks.'),
    fail_fast: z.boolean().optional().describe('Start nothing new after the first failure.'),
    background: z
      .boolean()
      .optional()
      .describe('Return the fleet id at once; the result is delivered when every item has finished.'),
  }),
);
export type FleetInput = z.infer<typeof FleetInputSchema>;

/** An item after preflight: its claim normalized (relative, directories ending in `/`), or omitted. */
export interface PlannedItem extends FleetItem {
  claim?: string[];
}

const GLOB = /[*?[\]{}]/;

/** The real path of `path`, resolving symlinks through its longest existing prefix. */
function realPath(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + 1));
    existing = parent;
  }
  return resolve(realpathSync(existing), ...rest);
}

/** A `write_paths` entry as a claim relative to `root`, or why it cannot be one. */
function claimPath(path: string, root: string): { claim: string } | { error: string } {
  if (GLOB.test(path)) return { error: `"${path}" is a glob; name files or directories (ending in /)` };
  const absolute = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const real = realPath(absolute);
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside))
    return {
      error: `"${path}" escapes the workspace${real !== absolute ? ` (through a symlink, to ${real})` : ''}`,
    };
  const isDirectory = path.endsWith('/') || (existsSync(real) && statSync(real).isDirectory());
  if (inside === '') return { claim: './' };
  const posix = inside.split(sep).join('/');
  return { claim: isDirectory ? `${posix}/` : posix };
}

/** The first dependency cycle, as the ids along it (first repeated at the end), or undefined. */
function findCycle(items: readonly FleetItem[]): string[] | undefined {
  const deps = new Map(items.map((i) => [i.id, i.depends_on ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      if (!deps.has(dep)) continue;
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const item of items) {
    const cycle = visit(item.id);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Every item each item depends on, directly or not. */
function ancestors(items: readonly FleetItem[]): Map<string, Set<string>> {
  const deps = new Map(items.map((i) => [i.id, i.depends_on ?? []]));
  const memo = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const all = new Set<string>();
    memo.set(id, all);
    for (const dep of deps.get(id) ?? []) {
      all.add(dep);
      for (const further of of(dep)) all.add(further);
    }
    return all;
  };
  for (const item of items) of(item.id);
  return memo;
}

/**
 * Preflight of SPEC 10: duplicate ids, unknown dependencies, cycles, globs or escaping paths in
 * `write_paths` (symlinks resolved), unknown profiles, and two explicit file claims on one file among items
 * that can run at the same time. Omitted and directory claims never fail here: they queue in the scheduler.
 * Returns every problem in one message naming the items.
 */
export function preflightFleet(
  input: FleetInput,
  root: string,
  knownProfiles: ReadonlySet<string>,
): { ok: true; items: PlannedItem[] } | { ok: false; error: string } {
  const problems: string[] = [];
  const realRoot = realpathSync(root);
  const seen = new Map<string, number>();
  input.tasks.forEach((item, index) => {
    const first = seen.get(item.id);
    if (first !== undefined) problems.push(`duplicate id "${item.id}" (items ${first + 1} and ${index + 1})`);
    else seen.set(item.id, index);
  });
  for (const item of input.tasks) {
    for (const dep of item.depends_on ?? []) {
      if (!seen.has(dep))
        problems.push(`item "${item.id}": depends_on "${dep}" is not an item of this fleet`);
      if (dep === item.id) problems.push(`item "${item.id}" depends on itself`);
    }
    const name = item.agent ?? item.profile;
    if (name !== undefined && !knownProfiles.has(name))
      problems.push(`item "${item.id}": unknown agent "${name}" (known: ${[...knownProfiles].join(', ')})`);
  }
  const cycle = findCycle(input.tasks);
  if (cycle && cycle.length > 2) problems.push(`dependency cycle: ${cycle.join(' → ')}`);
  const items: PlannedItem[] = input.tasks.map((item) => {
    if (!item.write_paths || item.write_paths.length === 0) return { ...item };
    const claim: string[] = [];
    for (const path of item.write_paths) {
      const result = claimPath(path, realRoot);
      if ('error' in result) problems.push(`item "${item.id}": write_paths ${result.error}`);
      else claim.push(result.claim);
    }
    return { ...item, claim };
  });
  if (problems.length === 0) {
    const before = ancestors(items);
    const ordered = (a: string, b: string) => before.get(a)?.has(b) || before.get(b)?.has(a);
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const [a, b] = [items[i], items[j]];
        if (ordered(a.id, b.id)) continue;
        const shared = (a.claim ?? []).filter((p) => !p.endsWith('/') && (b.claim ?? []).includes(p));
        for (const file of shared)
          problems.push(
            `items "${a.id}" and "${b.id}" both claim ${file} and can run at the same time (order them with depends_on, or split the file)`,
          );
      }
    }
  }
  if (problems.length > 0)
    return { ok: false, error: `fleet preflight failed; nothing was started:\n- ${problems.join('\n- ')}` };
  return { ok: true, items };
}
