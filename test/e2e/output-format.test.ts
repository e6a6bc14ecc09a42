import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { runCadre } from '../support/cli.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, jsonLines, servedProject } from './harness.js';

const readThenAnswer = () =>
  script()
    .turn((t) => t.text('Looking.').tool('read', { path: 'a.txt' }).usage(100, 10))
    .turn((t) => t.text('All good.').usage(120, 5));

describe('--output-format json', () => {
  it('prints exactly one JSON object with the contract fields', async () => {
    const server = await scriptedServer(readThenAnswer());
    const project = servedProject(server, { files: { 'a.txt': 'alpha\n' } });
    const run = await cadreIn(project, ['-p', 'check a.txt', '--output-format', 'json']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]);
    expect(summary).toMatchObject({
      result: 'All good.',
      is_error: false,
      usage: { input_tokens: 220, output_tokens: 15 },
      subagents: [],
      permission_denials: [],
    });
    expect(summary.session_id).toMatch(/^\S+$/);
    expect(summary).toHaveProperty('cost_usd');
    expect(summary.cost_usd === null || typeof summary.cost_usd === 'number').toBe(true);
  });

  it('marks a failed run with is_error and exit 1, still as one object', async () => {
    const server = await scriptedServer(script().turn((t) => t.error(401, 'bad key')));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'hi', '--output-format', 'json']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary.is_error).toBe(true);
    expect(summary.error).toContain('bad key');
  });
});

describe('--output-format stream-json', () => {
  it('prints one JSON event per line, ending with the result event', async () => {
    const server = await scriptedServer(readThenAnswer());
    const project = servedProject(server, { files: { 'a.txt': 'alpha\n' } });
    const run = await cadreIn(project, ['-p', 'check a.txt', '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('session_start');
    expect(types).toContain('text_delta');
    expect(types).toContain('tool_call_start');
    expect(types).toContain('tool_call_end');
    expect(types.filter((t) => t === 'turn_end')).toHaveLength(2);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'result', result: 'All good.', is_error: false });
    expect(types.filter((t) => t === 'result')).toHaveLength(1);
  });

  it('runs the read-class calls of one turn concurrently: every start before the first end', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) =>
          t.tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }).tool('read', { path: 'c.txt' }),
        )
        .text('Read all three.'),
    );
    const project = servedProject(server, {
      files: { 'a.txt': 'alpha-content\n', 'b.txt': 'bravo-content\n', 'c.txt': 'charlie-content\n' },
    });
    const run = await cadreIn(project, ['-p', 'read them', '--output-format', 'stream-json']);
    expect(run.code).toBe(0);
    const toolEvents = jsonLines(run.stdout).filter(
      (e) => e.type === 'tool_call_start' || e.type === 'tool_call_end',
    );
    expect(toolEvents.map((e) => e.type)).toEqual([
      'tool_call_start',
      'tool_call_start',
      'tool_call_start',
      'tool_call_end',
      'tool_call_end',
      'tool_call_end',
    ]);
    // Results still go back in call order.
    const results = server.requests[1].view.messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(3);
    ['alpha-content', 'bravo-content', 'charlie-content'].forEach((content, i) => {
      expect(results[i].text).toContain(content);
    });
    const calls = server.requests[1].view.messages.find((m) => m.role === 'assistant')?.toolCalls ?? [];
    expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
  });
});

describe('task input and informational flags', () => {
  it('takes the task from standard input', async () => {
    const server = await scriptedServer(script().text('Got it.'));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p'], { stdin: 'the task from stdin\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Got it.\n');
    expect(server.requests[0].view.messages).toEqual([{ role: 'user', text: 'the task from stdin' }]);
  });

  it('refuses an empty standard input with exit 2', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p'], { stdin: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no task/);
    expect(server.requests).toHaveLength(0);
  });

  it('prints the package version with --version', async () => {
    const run = await runCadre(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(packageJson.version);
  });

  it('prints usage naming the headless flags with --help', async () => {
    const run = await runCadre(['--help']);
    expect(run.code).toBe(0);
    for (const flag of ['--print', '--output-format', '--max-turns', '--resume', '--continue', '--yes'])
      expect(run.stdout).toContain(flag);
  });
});
