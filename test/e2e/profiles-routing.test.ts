import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

/** A project whose main provider is `main`, with the given extra aliases and files. */
function projectWith(
  main: ScriptedServer,
  aliases: Record<string, object>,
  files: Record<string, string>,
): TestProject {
  const project = makeProject({
    config: { providers: { main: scriptedProviderAlias(main), ...aliases }, provider: 'main' },
    files,
  });
  onTestFinished(() => project.cleanup());
  return project;
}

function cadreIn(project: TestProject, args: string[]) {
  return runCadre(args, { cwd: project.dir, env: { CADRE_CONFIG_DIR: project.configDir } });
}

const REVIEWER = '---\nmodel: cheap\ndeny_tools: [bash]\n---\nYou are a reviewer\n';

describe('cadre -p --agent reviewer (SPEC 4.1, 4.2)', () => {
  it('sends every request to the profile model alias, never to the main provider', async () => {
    const main = await scriptedServer(script().text('main provider answered'));
    const cheap = await scriptedServer(script().text('reviewed'));
    const project = projectWith(
      main,
      { cheap: scriptedProviderAlias(cheap, 'cheap-model') },
      { '.cadre/agents/reviewer.md': REVIEWER },
    );

    const result = await cadreIn(project, ['-p', 'review this', '--agent', 'reviewer']);

    expect(result).toMatchObject({ code: 0, stdout: 'reviewed\n' });
    expect(main.requests).toHaveLength(0);
    expect(cheap.requests).toHaveLength(1);
    expect(cheap.requests[0].view.model).toBe('cheap-model');
  });

  it('uses the profile body as the system prompt and leaves bash out of the tool list', async () => {
    const main = await scriptedServer(script().text('unused'));
    const cheap = await scriptedServer(script().text('reviewed'));
    const project = projectWith(
      main,
      { cheap: scriptedProviderAlias(cheap) },
      { '.cadre/agents/reviewer.md': REVIEWER },
    );

    await cadreIn(project, ['-p', 'review this', '--agent', 'reviewer']);

    const { view } = cheap.requests[0];
    expect(view.system.startsWith('You are a reviewer')).toBe(true);
    expect(view.tools).toContain('read');
    expect(view.tools).not.toContain('bash');
  });

  it('refuses a scripted bash call with a message naming the profile', async () => {
    const main = await scriptedServer(script().text('unused'));
    const cheap = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'ls' }))
        .text('gave up on bash'),
    );
    const project = projectWith(
      main,
      { cheap: scriptedProviderAlias(cheap) },
      { '.cadre/agents/reviewer.md': REVIEWER },
    );

    const result = await cadreIn(project, ['-p', 'list the files', '--agent', 'reviewer']);

    expect(result.code).toBe(0);
    expect(cheap.requests).toHaveLength(2);
    const toolResult = cheap.requests[1].view.messages.find((m) => m.role === 'tool');
    expect(toolResult?.text).toMatch(/denied/i);
    expect(toolResult?.text).toContain('profile reviewer');
  });

  it('reports the refused call in the JSON output permission_denials', async () => {
    const main = await scriptedServer(script().text('unused'));
    const cheap = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'ls' }))
        .text('done'),
    );
    const project = projectWith(
      main,
      { cheap: scriptedProviderAlias(cheap) },
      { '.cadre/agents/reviewer.md': REVIEWER },
    );

    const result = await cadreIn(project, [
      '-p',
      'list the files',
      '--agent',
      'reviewer',
      '--output-format',
      'json',
    ]);

    const output = JSON.parse(result.stdout);
    expect(output.permission_denials).toEqual([
      expect.objectContaining({ tool: 'bash', reason: expect.stringContaining('profile reviewer') }),
    ]);
  });
});

describe('profile reasoning and temperature on the wire (SPEC 4.2)', () => {
  it('sends reasoning_effort and temperature to an OpenAI-compatible route', async () => {
    const main = await scriptedServer(script().text('thought'));
    const project = projectWith(
      main,
      {},
      { '.cadre/agents/thinker.md': '---\nreasoning: high\ntemperature: 0.2\n---\nYou think hard\n' },
    );

    const result = await cadreIn(project, ['-p', 'think', '--agent', 'thinker']);

    expect(result).toMatchObject({ code: 0, stdout: 'thought\n' });
    const [request] = main.requests;
    expect(request.view.reasoning).toEqual({ effort: 'high' });
    expect(request.view.temperature).toBe(0.2);
    expect(request.body).toMatchObject({ reasoning_effort: 'high', temperature: 0.2 });
  });

  it('sends a thinking budget to an Anthropic route for reasoning: high', async () => {
    const main = await scriptedServer(script().text('thought'));
    const project = projectWith(
      main,
      {
        claude: {
          type: 'anthropic',
          base_url: main.anthropicBaseUrl,
          model: 'claude-sonnet-4-5',
          api_key: 'scripted',
        },
      },
      { '.cadre/agents/thinker.md': '---\nmodel: claude\nreasoning: high\n---\nYou think hard\n' },
    );

    const result = await cadreIn(project, ['-p', 'think', '--agent', 'thinker']);

    expect(result.code).toBe(0);
    const [request] = main.requests;
    expect(request.wire).toBe('anthropic');
    expect(request.view.reasoning).toEqual({ thinking: 'enabled', budgetTokens: 16_384 });
  });

  it('sends temperature to an Anthropic route when thinking is off', async () => {
    // Anthropic refuses a temperature alongside extended thinking, so the two are checked apart.
    const main = await scriptedServer(script().text('thought'));
    const project = projectWith(
      main,
      {
        claude: {
          type: 'anthropic',
          base_url: main.anthropicBaseUrl,
          model: 'claude-sonnet-4-5',
          api_key: 'scripted',
        },
      },
      {
        '.cadre/agents/calm.md':
          '---\nmodel: claude\nreasoning: "off"\ntemperature: 0.2\n---\nYou stay calm\n',
      },
    );

    const result = await cadreIn(project, ['-p', 'answer', '--agent', 'calm']);

    expect(result.code).toBe(0);
    const [request] = main.requests;
    expect(request.view.temperature).toBe(0.2);
    expect(request.view.reasoning).toEqual({ thinking: 'disabled' });
  });

  it('keeps provider SDK warnings off stdout, which holds only the answer', async () => {
    const main = await scriptedServer(script().text('thought'));
    const project = projectWith(
      main,
      {
        claude: {
          type: 'anthropic',
          base_url: main.anthropicBaseUrl,
          model: 'claude-sonnet-4-5',
          api_key: 'scripted',
        },
      },
      // Temperature with thinking makes the SDK warn that it drops the temperature.
      { '.cadre/agents/thinker.md': '---\nmodel: claude\nreasoning: high\ntemperature: 0.2\n---\nThink\n' },
    );

    const result = await cadreIn(project, ['-p', 'think', '--agent', 'thinker']);

    expect(result).toMatchObject({ code: 0, stdout: 'thought\n' });
  });
});
