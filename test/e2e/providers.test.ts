import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults, type Wire } from './harness.js';

describe.each<Wire>(['openai', 'responses', 'anthropic'])('cadre -p through the %s wire format', (wire) => {
  it('prints the final answer of a text-only turn', async () => {
    const server = await scriptedServer(script().text('Hello from the model.'));
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'say hello']);
    expect(run.stderr.split('\n').filter((line) => line && !line.startsWith('cadre: warning:'))).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Hello from the model.\n');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].wire).toBe(wire);
    expect(server.requests[0].view.messages).toEqual([{ role: 'user', text: 'say hello' }]);
  });

  it('runs a scripted read and sends its result back in the next request', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.text('Reading.').tool('read', { path: 'notes.txt' }))
        .text('The note says hi.'),
    );
    const project = servedProject(server, { wire, files: { 'notes.txt': 'hi from the notes file\n' } });
    const run = await cadreIn(project, ['-p', 'what does notes.txt say?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The note says hi.\n');
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(toolResults(first)).toEqual([]);
    const call = second.view.messages.find((m) => m.role === 'assistant')?.toolCalls?.[0];
    expect(call?.name).toBe('read');
    expect(JSON.parse(call?.arguments ?? '{}')).toEqual({ path: 'notes.txt' });
    const results = toolResults(second);
    expect(results).toHaveLength(1);
    expect(results[0].toolCallId).toBe(call?.id);
    expect(results[0].text).toContain('hi from the notes file');
  });

  it('writes a file with --yes and reports the write to the model', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('write', { path: 'out/greeting.txt', content: 'hello, file\n' }))
        .text('Wrote it.'),
    );
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'write a greeting', '--yes']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Wrote it.\n');
    expect(readFileSync(project.path('out/greeting.txt'), 'utf8')).toBe('hello, file\n');
    const [result] = toolResults(server.requests[1]);
    expect(result.text).toMatch(/greeting\.txt/);
    expect(result.text).not.toMatch(/denied/i);
  });

  it('refuses a write without --yes, telling the model nobody can approve it', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('write', { path: 'out.txt', content: 'x' }))
        .text('Could not write.'),
    );
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'write something']);
    expect(run.code).toBe(0);
    const [result] = toolResults(server.requests[1]);
    expect(result.text).toMatch(/Permission denied/);
    expect(result.text).toMatch(/no user is present/);
  });
});

describe('provider warnings', () => {
  it('reports an SDK warning once on stderr, keeping stdout for the answer', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('list_dir', {}))
        .turn((t) => t.tool('list_dir', {}))
        .text('Done.'),
    );
    // The Anthropic SDK warns on every call for a model it does not know (output tokens capped).
    const project = servedProject(server, { wire: 'anthropic' });
    const run = await cadreIn(project, ['-p', 'look around']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Done.\n');
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('cadre: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('maxOutputTokens');
    expect(server.requests).toHaveLength(3);
  });
});

describe('a type: openai alias on the Responses wire', () => {
  it('sends reasoning back by reference and parallel calls as one round', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) =>
          t.reasoning('Read both.').tool('read', { path: 'a.txt' }).tool('read', { path: 'b.txt' }),
        )
        .text('Both read.'),
    );
    const project = servedProject(server, {
      wire: 'responses',
      files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
    });
    const run = await cadreIn(project, ['-p', 'read a and b']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Both read.\n');
    expect(server.requests.map((r) => [r.path, r.answeredBy.turn, r.answeredBy.outcome])).toEqual([
      ['/v1/responses', 0, 'answer'],
      ['/v1/responses', 1, 'answer'],
    ]);
    const input = (server.requests[1].body as { input: { type?: string }[] }).input;
    expect(input.some((item) => item.type === 'item_reference')).toBe(true);
    expect(toolResults(server.requests[1]).map((r) => r.text.trim())).toEqual([
      expect.stringContaining('alpha'),
      expect.stringContaining('beta'),
    ]);
  });
});
