import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bashOutputTool } from '../../src/tool/bash-output.js';
import { createToolContext } from '../../src/tool/context.js';
import { killShellTool } from '../../src/tool/kill-shell.js';
import { createShellJobs, type LocalShellJobs } from '../../src/tool/shell-jobs.js';
import type { ToolContext } from '../../src/tool/tool.js';
import { run } from './fixture.js';
import { isAlive } from './process-probe.js';

describe('background shell jobs', () => {
  let root: string;
  let jobs: LocalShellJobs;
  let ctx: ToolContext;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cadre-jobs-')));
    jobs = createShellJobs({ now: () => 1234 });
    ctx = createToolContext({ root, jobs });
  });
  afterEach(() => {
    jobs.killAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('collects output that bash_output returns once, with the status', async () => {
    const job = jobs.start('echo one; echo two >&2; exit 4', root);
    expect(job).toMatchObject({ id: 'job-1', command: 'echo one; echo two >&2; exit 4', startedAt: 1234 });
    await job.finished;
    expect(await run(bashOutputTool, { job_id: 'job-1' }, ctx)).toEqual({
      output: 'status: exited (exit code 4)\none\ntwo',
    });
    expect(await run(bashOutputTool, { job_id: 'job-1' }, ctx)).toEqual({
      output: 'status: exited (exit code 4)\n(no new output)',
    });
  });

  it('runs in the given directory', async () => {
    const job = jobs.start('pwd', root);
    await job.finished;
    expect(job.drain()).toBe(`${root}\n`);
  });

  it('reports a running job and then kills it with its children through kill_shell', async () => {
    const job = jobs.start('sleep 30 & echo $!; wait', root);
    let firstOutput = '';
    await vi.waitFor(() => {
      firstOutput += job.drain();
      expect(firstOutput).toMatch(/^\d+\n$/);
    });
    const grandchild = Number(firstOutput.trim());
    expect(isAlive(grandchild)).toBe(true);
    expect(await run(bashOutputTool, { job_id: job.id }, ctx)).toEqual({
      output: 'status: running\n(no new output)',
    });
    expect(await run(killShellTool, { job_id: job.id }, ctx)).toEqual({ output: 'Killed job-1' });
    await job.finished;
    expect(job.status()).toBe('killed');
    // The kill is delivered at once, but the kernel finishes a process's exit after it closes its pipes.
    await vi.waitFor(() => expect(isAlive(grandchild)).toBe(false));
    expect(await run(killShellTool, { job_id: job.id }, ctx)).toEqual({
      output: 'job-1 is no longer running: killed',
    });
  });

  it('drops the oldest undrained output beyond its cap, with a count', async () => {
    const small = createShellJobs({ maxPendingChars: 10 });
    const job = small.start("printf '%s' 0123456789abcdefghij", root);
    await job.finished;
    expect(job.drain()).toBe('[... 10 earlier characters dropped ...]\nabcdefghij');
  });

  it('numbers jobs and lists them; killAll stops every running one', async () => {
    const first = jobs.start('sleep 30', root);
    const second = jobs.start('sleep 30', root);
    expect(jobs.list().map((job) => job.id)).toEqual(['job-1', 'job-2']);
    jobs.killAll();
    await Promise.all([first.finished, second.finished]);
    expect([first.status(), second.status()]).toEqual(['killed', 'killed']);
  });

  it("ends a finished job's own background children", async () => {
    const job = jobs.start('sleep 30 >/dev/null 2>&1 & echo $!', root);
    await job.finished;
    const child = Number(job.drain().trim());
    await vi.waitFor(() => expect(isAlive(child)).toBe(false));
  });

  it.each([bashOutputTool, killShellTool])('$name names the known jobs for an unknown id', async (tool) => {
    expect(await run(tool, { job_id: 'job-9' }, ctx)).toEqual({
      output: 'no background job job-9; no jobs were started',
      isError: true,
    });
    jobs.start('true', root);
    expect((await run(tool, { job_id: 'job-9' }, ctx)).output).toBe(
      'no background job job-9; known jobs: job-1',
    );
  });

  it.each([bashOutputTool, killShellTool])('$name rejects a missing job_id', (tool) => {
    expect(tool.schema.safeParse({}).success).toBe(false);
    expect(tool.subject({ job_id: 'job-1' })).toEqual({ kind: 'none' });
  });
});
