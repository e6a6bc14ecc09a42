import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

describe('headless -p runs slash commands through the session controller', () => {
  it('-p "/review the last commit" runs the review profile as a subagent and prints its answer', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the reviewer.' })
        .text('no findings')
        .rule()
        .text('main should not answer'),
    );
    const project = servedProject(server, {
      files: { '.cadre/agents/review.md': '---\ndescription: Reviews\n---\nYou are the reviewer.\n' },
    });
    const run = await cadreIn(project, ['-p', '/review the last commit', '--output-format', 'json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      result: 'no findings',
      is_error: false,
      subagents: [{ profile: 'review', status: 'completed' }],
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].view.messages.at(-1)?.text).toContain('the last commit');
  });

  it('-p "/etc/hosts looks wrong, why?" goes to the model unchanged', async () => {
    const server = await scriptedServer(script().text('it is fine'));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', '/etc/hosts looks wrong, why?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('it is fine\n');
    expect(server.requests[0].view.messages.at(-1)?.text).toBe('/etc/hosts looks wrong, why?');
  });

  it('-p "/agents" prints the listing; an unknown command is bad usage with close matches', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const agents = await cadreIn(project, ['-p', '/agents']);
    expect(agents.code).toBe(0);
    expect(agents.stdout).toContain('Profiles:');
    const typo = await cadreIn(project, ['-p', '/agnets']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('/agents');
    expect(server.requests).toHaveLength(0);
  });
});
