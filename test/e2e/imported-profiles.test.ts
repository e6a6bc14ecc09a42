import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

const REVIEWER = [
  '---',
  'name: code-reviewer',
  'description: Reviews code. Use when: a change is ready',
  'tools: Read, Grep',
  'model: sonnet',
  '---',
  'You review code.',
  '',
].join('\n');

describe('an imported Claude Code agent', () => {
  it('runs under task with the tools its author listed, on the Anthropic provider for its model family', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You review code.' })
        .text('looks fine')
        .rule()
        .turn((t) => t.tool('task', { agent: 'code-reviewer', prompt: 'review src' }))
        .text('done'),
    );
    const project = servedProject(server, {
      files: { '.claude/agents/code-reviewer.md': REVIEWER },
      config: {
        providers: {
          fake: {
            type: 'openai-compatible',
            base_url: server.openaiBaseUrl,
            model: 'main-model',
            api_key: 'k',
          },
          claude: { type: 'anthropic', base_url: server.anthropicBaseUrl, model: 'claude-x', api_key: 'k' },
        },
      },
    });
    const run = await cadreIn(project, ['-p', 'review it']);
    expect(run.code).toBe(0);
    // The frontmatter has an unquoted ": " (not strict YAML): it loads, with one warning naming the file.
    expect(run.stderr).toContain('code-reviewer.md');
    const child = server.requests.find((r) => r.view.system.includes('You review code.'));
    expect(child?.wire).toBe('anthropic');
    expect(child?.view.model).toBe('claude-sonnet-4-5');
    expect(child?.view.tools).toEqual(['read', 'grep']);
  });

  it('an explicit --model beats the active profile model for the main agent', async () => {
    const server = await scriptedServer(script().text('hi'));
    const project = servedProject(server, {
      files: { '.cadre/agents/pinned.md': '---\nmodel: profile-model\n---\nYou are pinned.\n' },
    });
    const run = await cadreIn(project, ['-p', 'x', '--agent', 'pinned', '--model', 'flag-model']);
    expect(run.code).toBe(0);
    expect(server.requests[0].view.model).toBe('flag-model');
    expect(server.requests[0].view.system).toContain('You are pinned.');
  });
});
