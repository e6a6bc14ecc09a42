import { describe, expect, it, onTestFinished } from 'vitest';
import { closestCommand, editDistance, wordsWithoutPrintMessage } from '../../src/cli/unknown-command.js';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const COMMANDS = ['agents', 'permissions', 'demo', 'tasks', 'subagent'];

describe('editDistance', () => {
  it.each([
    ['agents', 'agents', 0],
    ['agnets', 'agents', 2],
    ['agent', 'agents', 1],
    ['demoo', 'demo', 1],
    ['fix', 'demo', 3],
    ['explain', 'agents', 3],
  ])('%s → %s is %i (capped at 3)', (a, b, d) => {
    expect(editDistance(a, b, 2)).toBe(d);
  });
});

describe('closestCommand', () => {
  it.each([
    ['agnets', 'agents'],
    ['permisions', 'permissions'],
    ['Demo', 'demo'],
    ['task', 'tasks'],
    ['subagents', 'subagent'],
    ['refactor', undefined],
    ['fix', undefined],
  ])('%s suggests %s', (word, expected) => {
    expect(closestCommand(word, COMMANDS)).toBe(expected);
  });
});

describe('positional words without -p', () => {
  it('are not a headless task: a near miss of a command is named, anything else says to use -p', () => {
    expect(wordsWithoutPrintMessage(['agnets'], COMMANDS)).toBe(
      'unknown command "agnets"; did you mean "cadre agents"?',
    );
    expect(wordsWithoutPrintMessage(['fix', 'it'], COMMANDS)).toBe(
      '"fix" is not a command; to run a task headless use cadre -p "fix it"',
    );
  });

  it.each([
    [['agnets'], /^cadre: unknown command "agnets"; did you mean "cadre agents"\?\n$/],
    [['permisions', 'explain', 'bash(ls)'], /did you mean "cadre permissions"\?/],
    [['fix', 'the', 'bug'], /"fix" is not a command; to run a task headless use cadre -p "fix the bug"/],
  ])('%j without a terminal is exit 2 and never reaches the model', async (words, message) => {
    const server = await scriptedServer(script().text('should not run'));
    const p = makeProject({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    onTestFinished(() => p.cleanup());
    const run = await runCadre(words, { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });
});
