import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bashTool } from '../../src/tool/bash.js';
import { createToolContext } from '../../src/tool/context.js';
import { makeProject, type Project, run } from './fixture.js';
import { isAlive } from './process-probe.js';

describe('bash', () => {
  let project: Project;
  beforeEach(() => {
    project = makeProject({ 'hello.txt': 'hi from the project\n' });
  });
  afterEach(() => project.cleanup());

  it.each([
    ['runs in the project root', 'cat hello.txt', 'hi from the project\n[exit code 0]'],
    ['combines stdout and stderr', 'echo out; echo err >&2', 'out\nerr\n[exit code 0]'],
    ['reports a failing exit code', 'echo nope; exit 3', 'nope\n[exit code 3]'],
    ['says when there is no output', 'true', '(no output)\n[exit code 0]'],
    ['sees no interactive pager', 'echo "$GIT_PAGER"', 'cat\n[exit code 0]'],
  ])('%s', async (_label, command, expected) => {
    expect(await run(bashTool, { command }, project.ctx)).toEqual({ output: expected });
  });

  it('keeps the head and tail of long output with a note', async () => {
    const result = await run(bashTool, { command: 'seq 1 20000' }, project.ctx);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output).toMatch(/\n\[\.\.\. \d+ characters omitted \.\.\.\]\n/);
    expect(result.output.endsWith('19999\n20000\n[exit code 0]')).toBe(true);
    expect(result.output.length).toBeLessThan(31_000);
  });

  it('kills the whole process tree on timeout and says so', async () => {
    const command = 'sleep 30 & echo $! > child.pid; echo started; wait';
    const result = await run(bashTool, { command, timeout: 0.5 }, project.ctx);
    expect(result).toEqual({
      output: 'started\n[timed out after 0.5s; the command and its child processes were killed]',
      isError: true,
    });
    const child = Number(readFileSync(path.join(project.root, 'child.pid'), 'utf8'));
    await vi.waitFor(() => expect(isAlive(child)).toBe(false));
  });

  it('kills the process tree when the signal aborts', async () => {
    const controller = new AbortController();
    const ctx = { ...project.ctx, signal: controller.signal };
    const running = run(bashTool, { command: 'sleep 30 & echo $! > child.pid; wait' }, ctx);
    await vi.waitFor(() => expect(existsSync(path.join(project.root, 'child.pid'))).toBe(true));
    const child = Number(readFileSync(path.join(project.root, 'child.pid'), 'utf8'));
    controller.abort();
    expect(await running).toEqual({
      output: '(no output)\n[aborted; the command and its child processes were killed]',
      isError: true,
    });
    await vi.waitFor(() => expect(isAlive(child)).toBe(false));
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run(
      bashTool,
      { command: 'touch ran' },
      { ...project.ctx, signal: controller.signal },
    );
    expect(result).toEqual({ output: 'aborted before the command started', isError: true });
    expect(existsSync(path.join(project.root, 'ran'))).toBe(false);
  });

  it('returns once the shell exits even if a left-behind process holds its output open', async () => {
    const result = await run(bashTool, { command: 'sleep 3 & echo done' }, project.ctx);
    expect(result).toEqual({ output: 'done\n[exit code 0]' });
  });

  it('ends what the command left running in the background when the call returns', async () => {
    const result = await run(bashTool, { command: 'nohup sleep 30 >/dev/null 2>&1 & echo $!' }, project.ctx);
    const child = Number(result.output.split('\n')[0]);
    await vi.waitFor(() => expect(isAlive(child)).toBe(false));
  });

  it('reports a shell that cannot start', async () => {
    const ctx = createToolContext({ root: project.root });
    rmSync(project.root, { recursive: true, force: true });
    const result = await run(bashTool, { command: 'echo x' }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^could not start the shell: .*ENOENT/);
  });

  it('starts a background job through ctx.jobs', async () => {
    const result = await run(bashTool, { command: 'echo bg', background: true }, project.ctx);
    expect(result).toEqual({
      output: 'Started background job job-1. Read its output with bash_output, stop it with kill_shell.',
    });
    expect(project.ctx.jobs.get('job-1')?.command).toBe('echo bg');
  });

  it('has the command as its subject and declares write', () => {
    expect(bashTool.subject({ command: 'git status' })).toEqual({ kind: 'bash', command: 'git status' });
    expect(bashTool.safety).toBe('write');
  });

  it.each([
    [{}],
    [{ command: '' }],
    [{ command: 'ls', timeout: 0 }],
    [{ command: 'ls', timeout: 601 }],
    [{ command: 'ls', timeout: '5' }],
    [{ command: 'ls', background: 1 }],
  ])('schema rejects %j', (input) => {
    expect(bashTool.schema.safeParse(input).success).toBe(false);
  });
});
