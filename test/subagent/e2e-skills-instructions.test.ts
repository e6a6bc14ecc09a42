import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

/** Each cadre run may take this long on a loaded 2-core CI machine (the e2e suites run in parallel). */
const LOADED_MS = 90_000;

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

const FILES = {
  'AGENTS.md': 'Project rule: answer tersely.\n',
  '.cadre/skills/style/SKILL.md':
    '---\ndescription: house style\ninvocation: manual\n---\nAlways indent with tabs.\n',
  '.cadre/skills/lint/SKILL.md': '---\ndescription: how to lint\n---\nRun the linter first.\n',
  '.cadre/skills/auditor/SKILL.md': '---\nrunAs: subagent\ndescription: audits\n---\nYou audit.\n',
  '.cadre/agents/helper.md':
    '---\ndescription: helps\nsubagent_tools: readonly\nskills: [style]\ninstructions: true\n---\nYou are helper.\n',
  '.cadre/agents/plain.md': '---\ndescription: plain\nsubagent_tools: readonly\n---\nYou are plain.\n',
};

/** The main agent dispatches `agent`; the child (matched by its prompt) answers at once. */
async function dispatch(agent: string, config: Record<string, unknown> = {}) {
  const server = await scriptedServer(
    script()
      .rule({ system: `You are ${agent}` })
      .text('child done')
      .rule()
      .turn((t) => t.tool('task', { agent, prompt: 'check the code' }))
      .text('main done'),
  );
  const p = project({
    files: FILES,
    config: { provider: 'main', providers: { main: scriptedProviderAlias(server) }, ...config },
  });
  const run = await runCadre(['--trust-project', '-p', 'delegate it', '--output-format', 'json'], {
    cwd: p.dir,
    env: { CADRE_CONFIG_DIR: p.configDir },
    timeoutMs: LOADED_MS,
  });
  const child = server.requests.find((r) => r.view.system.includes(`You are ${agent}`));
  const main = server.requests.find((r) => !r.view.system.includes(`You are ${agent}`));
  return { run, child: child?.view.system ?? '', main: main?.view.system ?? '', p };
}

describe('skills and project instructions under task (issue 16 B6, B11)', { timeout: 4 * LOADED_MS }, () => {
  it("appends the profile's skills and, when it says instructions: true, the AGENTS.md files to the child's prompt", async () => {
    const { run, child, main } = await dispatch('helper');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).result).toBe('main done');
    expect(child).toContain('# Skill: style\nAlways indent with tabs.');
    expect(child).toContain('Project rule: answer tersely.');
    expect(child.indexOf('You are helper.')).toBeLessThan(child.indexOf('# Skill: style'));
    // The main agent has the instructions and the auto catalog, never the manual skill's body.
    expect(main).toContain('Project rule: answer tersely.');
    expect(main).toContain('- lint: how to lint');
    expect(main).not.toContain('Always indent with tabs.');
  });

  it('gives a child no instructions and no skills its profile does not ask for', async () => {
    const { run, child } = await dispatch('plain');
    expect(run.code).toBe(0);
    expect(child).toContain('You are plain.');
    expect(child).not.toContain('Project rule');
    expect(child).not.toContain('# Skill:');
  });

  it('disabled_skills turns a skill off everywhere: force-loading, the catalog and runAs profiles', async () => {
    const { run, child, main } = await dispatch('helper', { disabled_skills: ['style', 'lint', 'auditor'] });
    expect(run.code).toBe(0);
    expect(child).not.toContain('# Skill: style');
    expect(child).toContain('Project rule: answer tersely.');
    expect(main).not.toContain('lint');
    // A disabled skill is the user's choice, not a problem to warn about.
    expect(run.stderr).not.toContain('style');
    const p = project({ files: FILES, config: { disabled_skills: ['auditor'] } });
    const agents = await runCadre(['agents', '--json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    const names = JSON.parse(agents.stdout).profiles.map((profile: { name: string }) => profile.name);
    expect(names).toContain('helper');
    expect(names).not.toContain('auditor');
  });

  it('a disabled_skills that is not a list of names is a config error naming the key', async () => {
    const p = project({ config: { disabled_skills: 'style' } });
    const run = await runCadre(['--trust-project', '-p', 'go'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('disabled_skills');
  });

  it('an instructions value that is not true or false fails the profile with one warning naming it', async () => {
    const p = project({
      files: {
        '.cadre/agents/odd.md': '---\ndescription: odd\ninstructions: sometimes\n---\nYou are odd.\n',
      },
    });
    const run = await runCadre(['agents', '--json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('odd.md');
    expect(run.stderr).toContain('"instructions" must be true or false');
  });
});
