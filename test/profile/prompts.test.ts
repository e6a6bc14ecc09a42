import { afterEach, describe, expect, it } from 'vitest';
import { loadPrompts } from '../../src/profile/prompts.js';
import { type TempTree, tempTree } from './tree.js';

let tree: TempTree;
afterEach(() => tree.cleanup());

function load() {
  return loadPrompts({ projectRoot: tree.path('project'), globalDir: tree.path('global') });
}

describe('loadPrompts', () => {
  it('reads mode, deny_tools (translated) and body, project over global', () => {
    tree = tempTree({
      'project/.cadre/prompts/plan.md': '---\nmode: plan\ndeny_tools: [Write, bash]\n---\nPlan first.\n',
      'global/prompts/plan.md': '---\nmode: plan\n---\nGlobal plan.\n',
      'global/prompts/notes.md': 'Just notes.\n',
    });
    const { prompts, warnings } = load();
    expect(prompts.get('plan')).toEqual({
      name: 'plan',
      source: 'project',
      path: tree.path('project/.cadre/prompts/plan.md'),
      body: 'Plan first.',
      denyTools: ['write', 'bash'],
      mode: 'plan',
      description: undefined,
    });
    expect(prompts.get('notes')?.mode).toBe('default');
    expect(warnings).toEqual([]);
  });

  it.each([
    ['bad-mode.md', '---\nmode: yolo\n---\nx\n', 'invalid "mode" "yolo" (expected plan, review or default)'],
    ['default.md', 'x\n', 'reserved name "default"'],
    ['broken.md', '---\nmode: [\n---\nx\n', /^unparsable frontmatter/],
  ])('refuses %s with one warning', (file, text, reason) => {
    tree = tempTree({ [`project/.cadre/prompts/${file}`]: text });
    const { prompts, warnings } = load();
    expect(prompts.size).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].reason).toMatch(reason);
  });

  it('loads a prompt with an unknown key and names it', () => {
    tree = tempTree({ 'project/.cadre/prompts/r.md': '---\nmode: review\nmodel: haiku\n---\nx\n' });
    const { prompts, warnings } = load();
    expect(prompts.get('r')?.mode).toBe('review');
    expect(warnings.map((w) => w.reason)).toEqual(['unknown key(s) ignored: model']);
  });
});
