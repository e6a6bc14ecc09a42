import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles, type ProfileRegistry } from '../../src/profile/load.js';
import { type TempTree, tempTree } from './tree.js';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'profiles', 'bad');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Lays the corpus out as a project (agents, skills) plus a mission repo (roles), with one generated huge file. */
describe('the malformed profile corpus', () => {
  let tree: TempTree;
  let registry: ProfileRegistry;
  let expected: string[];

  beforeAll(() => {
    tree = tempTree();
    cpSync(join(CORPUS, 'agents'), tree.path('project/.cadre/agents'), { recursive: true });
    cpSync(join(CORPUS, 'skills'), tree.path('project/.cadre/skills'), { recursive: true });
    cpSync(join(CORPUS, 'roles'), tree.path('mission/orchestrator/roles'), { recursive: true });
    tree.write('project/.cadre/agents/huge.md', `---\ndescription: huge\n---\n${'x'.repeat(1024 * 1024)}\n`);
    expected = [
      ...filesUnder(tree.path('project/.cadre')),
      ...filesUnder(tree.path('mission/orchestrator/roles')),
    ].sort();
    registry = loadProfiles({
      projectRoot: tree.path('project'),
      globalDir: tree.path('global'),
      home: tree.path('home'),
      config: { mission_repo: tree.path('mission') },
    });
  });
  afterAll(() => tree.cleanup());

  it('holds at least 25 malformed files', () => {
    expect(filesUnder(CORPUS).length).toBeGreaterThanOrEqual(25);
  });

  it('yields exactly one warning per file', () => {
    expect(registry.warnings.map((w) => w.path).sort()).toEqual(expected);
  });

  it('loads none of them, leaving only the built-ins', () => {
    expect([...registry.profiles.values()].every((p) => p.source === 'builtin')).toBe(true);
    expect(registry.skills).toEqual([]);
  });

  it.each([
    ['agents/bad-yaml.md', /^unparsable frontmatter/],
    ['agents/unterminated-frontmatter.md', /^unterminated frontmatter/],
    ['agents/frontmatter-is-a-list.md', /expected a mapping/],
    ['agents/bad name.md', /^invalid name "bad name"/],
    ['agents/-leading-dash.md', /^invalid name/],
    ['agents/off.md', /^reserved name "off"/],
    ['agents/bash.md', /^reserved name "bash"/],
    ['agents/destructive.md', /^reserved name/],
    ['agents/perm-unterminated.md', /^malformed permission block: line 3: .*unterminated pattern/],
    ['agents/perm-non-string.md', /^malformed permission block: .*must be a string rule/],
    ['agents/perm-unknown-list.md', /^malformed permission block: unknown permission list "block"/],
    ['agents/perm-scalar.md', /^malformed permission block/],
    ['agents/binary-garbage.md', /^binary content/],
    ['agents/invalid-utf8.md', /^binary content \(not valid UTF-8\)/],
    ['agents/empty-delimiters.md', /^empty profile/],
    ['agents/empty.md', /^empty file/],
    ['agents/huge.md', /larger than 1 MiB/],
    ['agents/duplicate-keys.md', /^unparsable frontmatter/],
    ['agents/conflicting-effort-keys.md', /^conflicting keys reasoning and effort/],
    ['agents/bad-effort.md', /^invalid "effort" "turbo"/],
    ['roles/no-name.md', /^missing "name"/],
    ['roles/reserved-role-name.md', /^reserved name "default"/],
    ['skills/mismatch/SKILL.md', /does not match its folder "mismatch"/],
  ])('explains why %s was refused', (file, reason) => {
    const base = file.startsWith('roles/') ? 'mission/orchestrator' : 'project/.cadre';
    const warning = registry.warnings.find((w) => relative(tree.path(base), w.path) === file);
    expect(warning?.reason).toMatch(reason);
  });
});
