import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeGate } from '../../src/agent/gate-options.js';
import {
  type ActivationState,
  activateProfile,
  deactivateProfile,
  effectiveView,
  selectPrompt,
} from '../../src/profile/activation.js';
import { loadProfiles, type ProfileRegistry } from '../../src/profile/load.js';
import { loadPrompts, type PromptSet } from '../../src/profile/prompts.js';
import type { PermissionSubject } from '../../src/tool/tool.js';
import { type TempTree, tempTree } from './tree.js';

let tree: TempTree;
let registry: ProfileRegistry;
let prompts: PromptSet;

const start: ActivationState = {
  base: { prompt: 'You are cadre.', model: 'gpt-5.1', effort: 'medium', temperature: 1 },
};

beforeEach(() => {
  tree = tempTree({
    'project/.cadre/prompts/review.md':
      '---\nmode: review\ndeny_tools: [write, edit]\n---\nReview mode prompt.\n',
    'project/.cadre/agents/reviewer.md':
      '---\nmodel: haiku\neffort: low\ntemperature: 0.2\ndeny_tools: [bash, edit]\nskills: [style, missing]\n---\nYou are the reviewer.\n',
    'project/.cadre/agents/implementer.md': '---\nmodel: opus\neffort: max\n---\nYou implement.\n',
    'project/.cadre/agents/quiet.md': '---\nallow_tools: [read, grep]\n---\n',
    'project/.cadre/skills/style/SKILL.md':
      '---\ndescription: house style\ninvocation: manual\n---\nUse two spaces.\n',
    'project/.cadre/skills/tests/SKILL.md':
      '---\ndescription: how to test\napplies_to: [implementer]\n---\nRun vitest.\n',
  });
  const dirs = { projectRoot: tree.path('project'), globalDir: tree.path('global') };
  registry = loadProfiles({ ...dirs, home: tree.path('home') });
  prompts = loadPrompts(dirs);
});
afterEach(() => tree.cleanup());

function must(result: ReturnType<typeof activateProfile>): ActivationState {
  if (!result.ok) throw new Error(result.message);
  return result.state;
}

describe('the lists the view reports are what the gate enforces (SPEC 4.1)', () => {
  /** The gate the runtime composes for this layer state, and its answer for one call of `tool`. */
  function enforced(state: ActivationState) {
    const root = tree.path('project');
    const gate = composeGate({
      loaded: {
        config: {},
        files: [],
        globalDir: tree.path('global'),
        projectRoot: root,
        projectTrusted: false,
        untrusted: [],
      },
      profile: state.profileLayer,
      prompt: state.promptLayer,
      safety: 'full',
      yes: true,
      headless: false,
      root,
    });
    const subjects: Record<string, PermissionSubject> = {
      bash: { kind: 'bash', command: 'ls' },
      read: { kind: 'path', paths: [`${root}/a.txt`] },
      grep: { kind: 'path', paths: [root] },
      write: { kind: 'path', paths: [`${root}/a.txt`] },
      edit: { kind: 'path', paths: [`${root}/a.txt`] },
    };
    return async (tool: string) => {
      const safety = tool === 'read' || tool === 'grep' ? 'read' : 'write';
      const decision = await gate.decide({ tool, subject: subjects[tool], safety, agent: 'main' });
      return decision.action === 'deny' ? `deny: ${decision.reason}` : decision.action;
    };
  }

  it('denies the union of prompt and profile denies, each naming its layer, and /agent off lifts only the profile', async () => {
    const withPrompt = must(selectPrompt(start, 'review', prompts.prompts));
    const withAgent = must(activateProfile(withPrompt, 'reviewer', registry));
    const decide = enforced(withAgent);
    expect(await decide('bash')).toBe('deny: denied by profile reviewer (deny_tools: bash)');
    expect(await decide('write')).toMatch(/^deny: denied by prompt review \(deny_tools: write\)/);
    expect(await decide('edit')).toMatch(/^deny: denied by (profile reviewer|prompt review)/);
    expect(await decide('read')).toBe('allow');
    const off = enforced(deactivateProfile(withAgent));
    expect(await off('bash')).toBe('allow');
    expect(await off('edit')).toMatch(/^deny: denied by prompt review/);
  });

  it("denies every built-in outside a profile's allow list", async () => {
    const decide = enforced(must(activateProfile(start, 'quiet', registry)));
    expect(await decide('read')).toBe('allow');
    expect(await decide('grep')).toBe('allow');
    expect(await decide('bash')).toBe('deny: denied by profile quiet (allow_tools does not list bash)');
    expect(await decide('write')).toMatch(/^deny: denied by profile quiet/);
  });
});

describe('layering /prompt and /agent', () => {
  it('restores prompt body, denies, model, effort and temperature exactly after /prompt review, /agent reviewer, /agent off', () => {
    const withPrompt = must(selectPrompt(start, 'review', prompts.prompts));
    const promptView = effectiveView(withPrompt, registry);
    expect(promptView).toMatchObject({
      systemPrompt: 'Review mode prompt.',
      mode: 'review',
      denyTools: ['edit', 'write'],
      model: 'gpt-5.1',
      effort: 'medium',
      temperature: 1,
      activePrompt: 'review',
    });

    const withAgent = must(activateProfile(withPrompt, 'reviewer', registry));
    const agentView = effectiveView(withAgent, registry);
    expect(agentView.systemPrompt).toBe('You are the reviewer.\n\n# Skill: style\nUse two spaces.');
    expect(agentView.mode).toBe('review');
    expect(agentView.denyTools).toEqual(['bash', 'edit', 'write']);
    expect(agentView.denyLayers).toEqual({
      write: ['prompt'],
      edit: ['prompt', 'profile'],
      bash: ['profile'],
    });
    expect(agentView).toMatchObject({
      model: 'haiku',
      effort: 'low',
      temperature: 0.2,
      activeProfile: 'reviewer',
    });

    const off = deactivateProfile(withAgent);
    expect(off).toEqual(withPrompt);
    expect(effectiveView(off, registry)).toEqual(promptView);
  });

  it('replaces an active profile on a second activation so /agent off returns to the state before the first', () => {
    const before = must(selectPrompt(start, 'review', prompts.prompts));
    const first = must(activateProfile(before, 'reviewer', registry));
    const second = must(activateProfile(first, 'implementer', registry));
    expect(effectiveView(second, registry)).toMatchObject({ model: 'opus', effort: 'max', temperature: 1 });
    expect(effectiveView(second, registry).denyTools).toEqual(['edit', 'write']);
    expect(effectiveView(deactivateProfile(second), registry)).toEqual(effectiveView(before, registry));
  });

  it('keeps the prompt layer body when the profile has none, and denies every built-in outside its allow list', () => {
    const state = must(
      activateProfile(must(selectPrompt(start, 'review', prompts.prompts)), 'quiet', registry),
    );
    const view = effectiveView(state, registry);
    expect(view.systemPrompt).toBe('Review mode prompt.');
    expect(view.allowTools).toEqual(['read', 'grep']);
    expect(view.denyTools).toContain('bash');
    expect(view.denyTools).not.toContain('read');
  });

  it('uses the base prompt when neither layer is active and /prompt default clears the prompt layer', () => {
    const withPrompt = must(selectPrompt(start, 'review', prompts.prompts));
    const cleared = must(selectPrompt(withPrompt, 'default', prompts.prompts));
    expect(cleared).toEqual(start);
    expect(effectiveView(cleared, registry)).toMatchObject({
      systemPrompt: 'You are cadre.',
      mode: 'default',
      denyTools: [],
    });
  });

  it('lists the known names and leaves the state unchanged for an unknown profile', () => {
    const result = activateProfile(start, 'nope', registry);
    expect(result.ok).toBe(false);
    expect(result.state).toBe(start);
    if (!result.ok)
      expect(result.known).toEqual([
        'explore',
        'general',
        'implementer',
        'quiet',
        'review',
        'reviewer',
        'security-review',
      ]);
  });

  it('lists the known prompts for an unknown prompt', () => {
    const result = selectPrompt(start, 'nope', prompts.prompts);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.known).toEqual(['default', 'review']);
  });

  it('drops a profile skill that matches no skill at load, with a warning naming profile and skill', () => {
    expect(registry.profiles.get('reviewer')?.skills).toEqual(['style']);
    expect(registry.warnings).toEqual([
      {
        path: tree.path('project/.cadre/agents/reviewer.md'),
        reason: 'profile "reviewer": skill "missing" not found; dropped',
      },
    ]);
  });

  it('warns on activation when a profile skill is no longer among the skills', () => {
    const result = activateProfile(start, 'reviewer', { ...registry, skills: [] });
    expect(result.ok && result.warnings).toEqual(['profile "reviewer": skill "style" not found; dropped']);
    if (result.ok)
      expect(effectiveView(result.state, { skills: [] }).systemPrompt).toBe('You are the reviewer.');
  });

  it('offers auto skills in the catalog only under the profiles they apply to', () => {
    expect(effectiveView(start, registry).skillCatalog).toBe('');
    const implementer = must(activateProfile(start, 'implementer', registry));
    expect(effectiveView(implementer, registry).skillCatalog).toContain('- tests: how to test');
  });
});
