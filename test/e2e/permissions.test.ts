import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

describe('a config deny rule', () => {
  it('shows the model a denial naming the rule and its file, lists it in JSON, and explain agrees', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'ls' }))
        .text('Bash is not allowed here.'),
    );
    const project = servedProject(server, { config: { permission: { deny: ['bash'] } } });
    const configFile = project.path('.cadre/config.json');
    const ruleLine =
      readFileSync(configFile, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('"bash"')) + 1;
    const source = `${configFile}:${ruleLine}`;
    const run = await cadreIn(project, ['-p', 'list files', '--yes', '--output-format', 'json']);
    expect(run.code).toBe(0);
    const [result] = toolResults(server.requests[1]);
    expect(result.text).toMatch(/^Permission denied/);
    expect(result.text).toContain(`rule bash (${source})`);

    const summary = JSON.parse(run.stdout);
    expect(summary.permission_denials).toEqual([
      expect.objectContaining({ tool: 'bash', rule: 'bash', source, input: { command: 'ls' } }),
    ]);

    const explain = await cadreIn(project, ['permissions', 'explain', 'bash(ls)']);
    expect(explain.code).toBe(0);
    const lines = explain.stdout.split('\n');
    expect(lines[0]).toBe('decision: deny');
    expect(lines).toContain('rule: bash');
    expect(lines).toContain(`source: ${source}`);
  });
});
