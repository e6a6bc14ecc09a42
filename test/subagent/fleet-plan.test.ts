import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FleetInputSchema, type FleetItem, preflightFleet } from '../../src/subagent/fleet-plan.js';
import { createFleetTool, FLEET_INPUT_JSON_SCHEMA } from '../../src/subagent/fleet-tool.js';

const root = mkdtempSync(join(tmpdir(), 'cadre-fleet-'));
mkdirSync(join(root, 'src'));
writeFileSync(join(root, 'src', 'a.ts'), '');
const outside = mkdtempSync(join(tmpdir(), 'cadre-outside-'));
symlinkSync(outside, join(root, 'link'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const PROFILES = new Set(['worker', 'reviewer']);
const item = (id: string, extra: Partial<FleetItem> = {}): FleetItem => ({
  id,
  prompt: `do ${id}`,
  ...extra,
});

describe('fleet preflight (SPEC 10)', () => {
  const refused: [string, FleetItem[], RegExp][] = [
    ['duplicate ids', [item('a'), item('b'), item('a')], /duplicate id "a" \(items 1 and 3\)/],
    [
      'an unknown dependency',
      [item('a', { depends_on: ['zz'] }), item('b')],
      /item "a": depends_on "zz" is not an item/,
    ],
    [
      'a cycle, named',
      [item('a', { depends_on: ['c'] }), item('b', { depends_on: ['a'] }), item('c', { depends_on: ['b'] })],
      /dependency cycle: a → c → b → a/,
    ],
    ['a self-dependency', [item('a', { depends_on: ['a'] }), item('b')], /item "a" depends on itself/],
    [
      'a glob',
      [item('a', { write_paths: ['src/*.ts'] }), item('b')],
      /item "a": write_paths "src\/\*\.ts" is a glob/,
    ],
    [
      'a path escaping with ..',
      [item('a', { write_paths: ['../x'] }), item('b')],
      /item "a": write_paths "\.\.\/x" escapes the workspace/,
    ],
    [
      'an absolute path outside',
      [item('a', { write_paths: ['/etc/passwd'] }), item('b')],
      /escapes the workspace/,
    ],
    [
      'a symlink out of the workspace',
      [item('a', { write_paths: ['link/f.txt'] }), item('b')],
      /item "a": write_paths "link\/f\.txt" escapes the workspace \(through a symlink/,
    ],
    [
      'two concurrent explicit claims on one file',
      [item('a', { write_paths: ['src/a.ts'] }), item('b', { write_paths: ['./src/a.ts'] })],
      /items "a" and "b" both claim src\/a\.ts and can run at the same time/,
    ],
    ['an unknown profile', [item('a', { agent: 'ghost' }), item('b')], /item "a": unknown agent "ghost"/],
  ];
  for (const [name, tasks, message] of refused) {
    it(`refuses ${name}, naming the item`, () => {
      const result = preflightFleet({ tasks }, root, PROFILES);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toMatch(/^fleet preflight failed; nothing was started:\n- /);
        expect(result.error).toMatch(message);
      }
    });
  }

  const accepted: [string, FleetItem[], Record<string, string[] | undefined>][] = [
    [
      'items ordered by the graph sharing a file',
      [
        item('impl', { write_paths: ['src/a.ts'] }),
        item('review', { depends_on: ['impl'], write_paths: ['src/a.ts'] }),
      ],
      { impl: ['src/a.ts'], review: ['src/a.ts'] },
    ],
    [
      'transitively ordered items sharing a file',
      [
        item('a', { write_paths: ['f.txt'] }),
        item('b', { depends_on: ['a'] }),
        item('c', { depends_on: ['b'], write_paths: ['f.txt'] }),
      ],
      { a: ['f.txt'], b: undefined, c: ['f.txt'] },
    ],
    ['omitted claims (they queue in the scheduler)', [item('a'), item('b')], { a: undefined, b: undefined }],
    [
      'directory claims on one directory, and a file inside one (they queue)',
      [
        item('a', { write_paths: ['src'] }),
        item('b', { write_paths: ['src/'] }),
        item('c', { write_paths: ['src/a.ts'] }),
      ],
      { a: ['src/'], b: ['src/'], c: ['src/a.ts'] },
    ],
    [
      'an absolute path inside the workspace',
      [item('a', { write_paths: [join(root, 'new.txt')] }), item('b')],
      { a: ['new.txt'], b: undefined },
    ],
  ];
  for (const [name, tasks, claims] of accepted) {
    it(`accepts ${name}`, () => {
      const result = preflightFleet({ tasks }, root, PROFILES);
      expect(result.ok).toBe(true);
      if (result.ok) expect(Object.fromEntries(result.items.map((i) => [i.id, i.claim]))).toEqual(claims);
    });
  }

  it('reports every problem at once', () => {
    const result = preflightFleet(
      { tasks: [item('a', { write_paths: ['*'] }), item('a'), item('b', { depends_on: ['q'] })] },
      root,
      PROFILES,
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.split('\n- ')).toHaveLength(4);
  });

  it('takes 2 to 64 items', () => {
    expect(FleetInputSchema.safeParse({ tasks: [item('a')] }).success).toBe(false);
    expect(
      FleetInputSchema.safeParse({ tasks: Array.from({ length: 65 }, (_, i) => item(`i${i}`)) }).success,
    ).toBe(false);
    expect(FleetInputSchema.safeParse({ tasks: [item('a'), item('b')], fail_fast: true }).success).toBe(true);
  });
});

describe('fleet tool schema', () => {
  it('is the same bytes whatever profiles exist, and names none', () => {
    const runner = { runFleet: async () => ({ output: '' }) };
    const first = JSON.stringify([
      createFleetTool(runner).description,
      createFleetTool(runner).inputJsonSchema,
    ]);
    const second = JSON.stringify([createFleetTool(runner).description, FLEET_INPUT_JSON_SCHEMA]);
    expect(first).toBe(second);
    expect(first).not.toMatch(/"enum":\s*\["(explore|general|review)/);
  });
});
