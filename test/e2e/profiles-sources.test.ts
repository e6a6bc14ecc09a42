import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';

function writeFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs cadre in the project with its own global config dir and an empty home (no stray ~/.claude). */
function cadreIn(project: TestProject, args: string[], home: string) {
  return runCadre(args, { cwd: project.dir, env: { CADRE_CONFIG_DIR: project.configDir, HOME: home } });
}

interface AgentsDoc {
  profiles: Record<string, unknown>[];
  collisions: { name: string; winner: unknown; losers: unknown[] }[];
  warnings: { path: string; reason: string }[];
  roles: Record<string, string | null>;
}

describe('cadre agents: sources and collisions (SPEC 3.1)', () => {
  function projectWithTwoReviewers() {
    const project = makeProject({
      files: { '.cadre/agents/reviewer.md': '---\ndescription: project reviewer\n---\nProject body\n' },
    });
    onTestFinished(() => project.cleanup());
    const globalFile = join(project.configDir, 'agents', 'reviewer.md');
    writeFile(globalFile, '---\ndescription: global reviewer\n---\nGlobal body\n');
    return { project, projectFile: project.path('.cadre/agents/reviewer.md'), globalFile };
  }

  it('lets the project profile win over the global one and lists the collision in JSON', async () => {
    const { project, projectFile, globalFile } = projectWithTwoReviewers();

    const result = await cadreIn(project, ['agents', '--json'], tempDir('cadre-home-'));

    expect(result.code).toBe(0);
    const doc: AgentsDoc = JSON.parse(result.stdout);
    expect(doc.profiles.find((p) => p.name === 'reviewer')).toMatchObject({
      source: 'project',
      path: projectFile,
      description: 'project reviewer',
    });
    expect(doc.collisions).toEqual([
      {
        name: 'reviewer',
        winner: { source: 'project', path: projectFile },
        losers: [{ source: 'global', path: globalFile }],
      },
    ]);
  });

  it('names the winner and the loser of the collision in the text listing', async () => {
    const { project, projectFile, globalFile } = projectWithTwoReviewers();

    const result = await cadreIn(project, ['agents'], tempDir('cadre-home-'));

    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const reviewerLine = lines.find((l) => /^\s*\*?\s*reviewer\s/.test(l));
    expect(reviewerLine).toMatch(/\bproject\b/);
    expect(result.stdout).toContain('Collisions:');
    expect(lines).toContain(`  reviewer: project ${projectFile} wins over global ${globalFile}`);
  });

  it('runs the project body when the name collides', async () => {
    const { project } = projectWithTwoReviewers();
    writeFile(
      project.path('script.json'),
      JSON.stringify({
        rules: [
          { match: { system: 'Project body' }, turns: [{ text: 'project profile ran' }] },
          { turns: [{ text: 'another prompt ran' }] },
        ],
      }),
    );
    writeFile(
      project.path('.cadre/config.json'),
      JSON.stringify({ providers: { s: { type: 'scripted', script: '../script.json' } }, provider: 's' }),
    );

    const result = await cadreIn(project, ['-p', 'go', '--agent', 'reviewer'], tempDir('cadre-home-'));

    expect(result).toMatchObject({ code: 0, stdout: 'project profile ran\n' });
  });

  it('loads a mission role and a Claude Code subagent with their tools translated', async () => {
    const mission = tempDir('cadre-mission-');
    writeFile(
      join(mission, 'orchestrator', 'roles', 'planner.md'),
      '---\nname: planner\ndescription: mission planner\ntools: [Read, Glob, Bash]\n---\nPlan the work.\n',
    );
    const project = makeProject({
      config: { mission_repo: mission },
      files: {
        '.claude/agents/x.md':
          '---\nname: scout\ndescription: claude scout\ntools: Read, Grep\ndisallowedTools: Write\n---\nScout.\n',
      },
    });
    onTestFinished(() => project.cleanup());

    const result = await cadreIn(project, ['agents', '--json'], tempDir('cadre-home-'));

    expect(result.code).toBe(0);
    const doc: AgentsDoc = JSON.parse(result.stdout);
    expect(doc.warnings).toEqual([]);
    expect(doc.profiles.find((p) => p.name === 'planner')).toMatchObject({
      source: 'mission',
      path: join(mission, 'orchestrator', 'roles', 'planner.md'),
      // Glob is also find_files; Bash brings its background-job tools.
      allow_tools: ['read', 'glob', 'find_files', 'bash', 'bash_output', 'kill_shell'],
      description: 'mission planner',
    });
    expect(doc.profiles.find((p) => p.name === 'scout')).toMatchObject({
      source: 'claude',
      path: project.path('.claude/agents/x.md'),
      allow_tools: ['read', 'grep'],
      deny_tools: ['write'],
      description: 'claude scout',
    });
  });

  it('loads Claude Code subagents from the home directory too', async () => {
    const home = tempDir('cadre-home-');
    writeFile(join(home, '.claude', 'agents', 'helper.md'), '---\ntools: LS, WebFetch\n---\nHelp.\n');
    const project = makeProject();
    onTestFinished(() => project.cleanup());

    const result = await cadreIn(project, ['agents', '--json'], home);

    const doc: AgentsDoc = JSON.parse(result.stdout);
    expect(doc.profiles.find((p) => p.name === 'helper')).toMatchObject({
      source: 'claude',
      allow_tools: ['list_dir', 'webfetch'],
    });
  });
});

describe('cadre agents --json document (SPEC 1)', () => {
  it('has exactly the documented keys, with routes and role routing', async () => {
    const project = makeProject({
      config: {
        providers: {
          main: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', model: 'big', api_key: 'k' },
          cheap: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', model: 'small' },
        },
        provider: 'main',
      },
      files: {
        '.cadre/agents/reviewer.md':
          '---\ndescription: cheap reviewer\nmodel: cheap\ndeny_tools: [bash]\n---\nYou are a reviewer\n',
        '.cadre/agents/literal.md': '---\nmodel: some-model\nallow_tools: [read]\n---\nLiteral.\n',
      },
    });
    onTestFinished(() => project.cleanup());
    // Role routes are the user's choice (global config): an untrusted project's own are ignored.
    writeFileSync(join(project.configDir, 'config.json'), JSON.stringify({ subagent_provider: 'cheap' }));

    const result = await cadreIn(project, ['agents', '--json'], tempDir('cadre-home-'));

    expect(result.code).toBe(0);
    const doc: AgentsDoc = JSON.parse(result.stdout);
    expect(Object.keys(doc).sort()).toEqual(['collisions', 'profiles', 'roles', 'warnings']);
    const profileKeys = [
      'allow_tools',
      'deny_tools',
      'description',
      'model',
      'name',
      'path',
      'route',
      'source',
      'tier',
    ];
    for (const profile of doc.profiles) expect(Object.keys(profile).sort()).toEqual(profileKeys);
    expect(doc.profiles.map((p) => p.name)).toEqual([
      'explore',
      'general',
      'literal',
      'review',
      'reviewer',
      'security-review',
    ]);
    expect(doc.profiles.find((p) => p.name === 'reviewer')).toEqual({
      name: 'reviewer',
      source: 'project',
      path: project.path('.cadre/agents/reviewer.md'),
      model: 'cheap',
      route: {
        kind: 'alias',
        alias: 'cheap',
        type: 'openai-compatible',
        model: 'small',
        base_url: 'http://127.0.0.1:9/v1',
      },
      tier: 'toolless',
      allow_tools: null,
      deny_tools: ['bash'],
      description: 'cheap reviewer',
    });
    expect(doc.profiles.find((p) => p.name === 'literal')).toMatchObject({
      model: 'some-model',
      route: { kind: 'literal', model: 'some-model' },
      allow_tools: ['read'],
      description: null,
    });
    expect(doc.collisions).toEqual([]);
    expect(doc.warnings).toEqual([]);
    expect(doc.roles).toEqual({
      subagent_provider: 'cheap',
      summarization_provider: null,
      review_provider: null,
      escalation_provider: null,
      critic_provider: null,
      approval_provider: null,
    });
  });

  it('never lists a provider key', async () => {
    const project = makeProject({
      config: {
        providers: { cheap: { type: 'openai', model: 'gpt-x', api_key: 'sk-secret-value' } },
      },
      files: { '.cadre/agents/reviewer.md': '---\nmodel: cheap\n---\nYou are a reviewer\n' },
    });
    onTestFinished(() => project.cleanup());

    const result = await cadreIn(project, ['agents', '--json'], tempDir('cadre-home-'));

    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('sk-secret-value');
  });
});
