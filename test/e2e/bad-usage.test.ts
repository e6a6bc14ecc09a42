import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

/** A bad config file: its text, and the line and JSON path the error must name. */
const BAD_CONFIGS = [
  {
    name: 'invalid JSON',
    text: '{\n  "provider": "fake",\n  "model": \n}\n',
    line: 4,
    expect: /invalid JSON/,
  },
  {
    name: 'an unknown key',
    text: '{\n  // comments are fine\n  "provider": "fake",\n  "providerz": {}\n}\n',
    line: 4,
    expect: /invalid configuration at providerz: unknown key "providerz"/,
  },
  {
    name: 'a wrong type',
    text: '{\n  "max_subagent_concurrency": "six"\n}\n',
    line: 2,
    expect: /invalid configuration at max_subagent_concurrency: .*number/,
  },
  {
    name: 'a wrong type deep inside',
    text: '{\n  "permission": {\n    "deny": ["bash", 7]\n  }\n}\n',
    line: 3,
    expect: /invalid configuration at permission\.deny\[1\]: .*string/,
  },
];

describe.each([
  { where: 'the project config', file: (dir: string, _global: string) => join(dir, '.cadre', 'config.json') },
  { where: 'the global config', file: (_dir: string, global: string) => join(global, 'config.json') },
])('a bad $where', ({ file }) => {
  it.each(BAD_CONFIGS)('with $name exits 2 naming the file, line and JSON path', async (bad) => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const path = file(project.dir, project.configDir);
    writeFileSync(path, bad.text);
    const run = await cadreIn(project, ['-p', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${path}:${bad.line}:`);
    expect(run.stderr).toMatch(bad.expect);
    expect(server.requests).toHaveLength(0);
  });
});

describe('bad flags', () => {
  it.each([
    { args: ['-p', 'hi', '--provider', 'nope'], stderr: /unknown provider alias "nope".*fake/ },
    { args: ['-p', 'hi', '--safety', 'bogus'], stderr: /bogus/ },
    {
      args: ['-p', 'hi', '--max-turns', '0'],
      stderr: /'--max-turns <n>' argument '0' is invalid.*positive integer/,
    },
    { args: ['-p', 'hi', '--max-turns', 'many'], stderr: /'--max-turns <n>'.*positive integer, got "many"/ },
    { args: ['worker', '--concurrency', '0'], stderr: /'--concurrency <n>' argument '0'.*positive integer/ },
    { args: ['web', '--port', '70000'], stderr: /'--port <port>' argument '70000'.*port number/ },
    { args: ['-p', 'hi', '--output-format', 'xml'], stderr: /xml/ },
    { args: ['-p', 'hi', '--agent', 'no-such-profile'], stderr: /unknown profile "no-such-profile"/ },
    { args: ['-p', 'hi', '--cwd', '/no/such/dir'], stderr: /not a directory/ },
    { args: ['-p', 'hi', '--no-such-flag'], stderr: /unknown option/ },
  ])('$args exits 2 without calling the model', async ({ args, stderr }) => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const run = await cadreIn(project, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(server.requests).toHaveLength(0);
  });
});

describe('the turn cap', () => {
  it('--max-turns 1 with a tool loop stops after one turn with exit 1', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('list_dir', {}))
        .turn((t) => t.tool('list_dir', {}))
        .text('never reached'),
    );
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'loop', '--max-turns', '1', '--output-format', 'json']);
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, stop_reason: 'max_turns' });
  });

  it('--max-turns 1 in text mode names the cap on stderr', async () => {
    const server = await scriptedServer(script().turn((t) => t.tool('list_dir', {})));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'loop', '--max-turns', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--max-turns 1');
  });
});
