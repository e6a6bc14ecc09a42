import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SandboxSettings } from '../../src/sandbox/policy.js';
import { openSandbox, type ShellSandbox, sandboxAt } from '../../src/sandbox/sandbox.js';
import { bashTool } from '../../src/tool/bash.js';
import { createToolContext } from '../../src/tool/context.js';
import { createShellJobs } from '../../src/tool/shell-jobs.js';
import type { ToolContext } from '../../src/tool/tool.js';
import { bwrapTestsRun, hostProcessesWith, requireBwrap, testSandboxSettings } from '../support/bwrap.js';
import { makeProject, type Project, run } from '../tool/fixture.js';

describe.runIf(bwrapTestsRun)('commands in the bwrap sandbox', () => {
  beforeAll(requireBwrap);
  let project: Project;
  let home: string;
  let settings: SandboxSettings;

  function sandboxed(overrides: Partial<SandboxSettings> = {}): { sandbox: ShellSandbox; ctx: ToolContext } {
    const { sandbox } = openSandbox({ ...settings, ...overrides }, project.root, 'bwrap');
    return { sandbox, ctx: createToolContext({ root: project.root, sandbox }) };
  }
  const bash = (ctx: ToolContext, command: string) => run(bashTool, { command }, ctx);

  beforeEach(() => {
    project = makeProject({ 'hello.txt': 'hi\n' });
    home = path.join(path.dirname(project.root), 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
    writeFileSync(path.join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_secret\n');
    settings = testSandboxSettings(home);
  });
  afterEach(() => project.cleanup());

  it('writes inside the project and refuses a write outside it, with the hint line', async () => {
    const { ctx } = sandboxed();
    expect(await bash(ctx, 'echo made > made.txt && cat made.txt')).toEqual({
      output: 'made\n[exit code 0]',
    });
    // Outside the private /tmp, where the host directory is visible (read-only) inside the sandbox.
    const outsideFile = `/var/tmp/cadre-escape-${process.pid}`;
    const refused = await bash(ctx, `touch ${outsideFile}`);
    expect(existsSync(outsideFile)).toBe(false);
    expect(refused.output).toContain('Read-only file system');
    expect(refused.output).toContain(`sandbox: ${outsideFile} is not writable (writable: ${project.root}, `);
    expect(refused.output).toMatch(/\n\[exit code 1\]$/);
  });

  it('writes an outside path granted for the call, and only for that call', async () => {
    const { ctx } = sandboxed();
    const target = path.join(project.outside, 'granted.txt');
    const granted = { ...ctx, grants: [{ path: target, directory: false }] };
    expect((await bash(granted, `echo ok > ${target}`)).output).toBe('(no output)\n[exit code 0]');
    expect(readFileSync(target, 'utf8')).toBe('ok\n');
    expect((await bash(ctx, `echo again > ${target}`)).output).toMatch(/exit code 1\]$/);
    expect(readFileSync(target, 'utf8')).toBe('ok\n');
  });

  it('empties the hidden secret directories and files', async () => {
    const { ctx } = sandboxed();
    expect(await bash(ctx, `ls -A ${home}/.ssh; cat ${home}/.npmrc; echo end`)).toEqual({
      output: 'end\n[exit code 0]',
    });
  });

  it('empties ~/.netrc and ~/.git-credentials too, and cadre’s own config directory', async () => {
    writeFileSync(path.join(home, '.netrc'), 'machine x login me password netrc_secret\n');
    writeFileSync(path.join(home, '.git-credentials'), 'https://me:gitcred_secret@example.invalid\n');
    mkdirSync(settings.configDir, { recursive: true });
    writeFileSync(path.join(settings.configDir, 'config.json'), '{"providers": {}}\n');
    const { ctx } = sandboxed();
    const output = (
      await bash(ctx, `cat ${home}/.netrc ${home}/.git-credentials; ls -A ${settings.configDir}; echo end`)
    ).output;
    expect(output).toBe('end\n[exit code 0]');
  });

  it('confines background jobs like foreground commands: secrets hidden, env scrubbed, no write outside', async () => {
    const { sandbox } = sandboxed();
    const jobs = createShellJobs({ sandbox });
    vi.stubEnv('JOB_API_KEY', 'job-secret-value');
    // Not under /tmp, which is private to the sandbox.
    const outside = `/var/tmp/cadre-job-escape-${process.pid}`;
    try {
      const job = jobs.start(
        `cat ${home}/.ssh/id_rsa; env | grep -c job-secret-value; touch ${outside}; echo done`,
        project.root,
      );
      await job.finished;
      const output = job.drain();
      expect(output).not.toContain('PRIVATE KEY');
      expect(output).toMatch(/^0$/m);
      expect(output).toContain('Read-only file system');
      expect(output).toContain('done');
      expect(existsSync(outside)).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('hides sandbox_hide entries relative to the project', async () => {
    project.write('.env', 'DB_URL=postgres://secret\n');
    const { ctx } = sandboxed({ hide: ['.env'] });
    expect((await bash(ctx, 'cat .env; echo end')).output).toBe('end\n[exit code 0]');
  });

  it('scrubs secrets from the environment and keeps the rest', async () => {
    const { ctx } = sandboxed({ envAllow: ['KEEP_THIS_TOKEN'] });
    const names = [
      'MY_MODEL_KEY',
      'SOME_API_KEY',
      'GH_TOKEN',
      'DB_PASSWORD',
      'KEEP_THIS_TOKEN',
      'PLAIN_SETTING',
    ];
    for (const name of names) vi.stubEnv(name, `value-of-${name}`);
    try {
      const output = (await bash(ctx, 'env')).output;
      expect(output).not.toMatch(/value-of-(MY_MODEL_KEY|SOME_API_KEY|GH_TOKEN|DB_PASSWORD)/);
      expect(output).toContain('KEEP_THIS_TOKEN=value-of-KEEP_THIS_TOKEN');
      expect(output).toContain('PLAIN_SETTING=value-of-PLAIN_SETTING');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('keeps .git/hooks and .git/config read-only while commits work', async () => {
    execFileSync('git', ['init', '-q', project.root]);
    const { ctx } = sandboxed();
    const hook = await bash(ctx, 'echo "curl evil" > .git/hooks/pre-commit');
    expect(hook.output).toContain('Read-only file system');
    expect(hook.output).toContain(`sandbox: ${project.root}/.git/hooks/pre-commit is not writable`);
    expect((await bash(ctx, 'git config core.fsmonitor "touch pwned"')).output).toMatch(/exit code [1-9]/);
    const commit = await bash(
      ctx,
      'git add hello.txt && git -c user.name=t -c user.email=t@t commit -qm first && git log --oneline | wc -l',
    );
    expect(commit).toEqual({ output: '1\n[exit code 0]' });
  });

  it('gives a private /tmp', async () => {
    const { ctx } = sandboxed();
    const marker = `cadre-private-tmp-${process.pid}`;
    expect((await bash(ctx, `touch /tmp/${marker} && ls /tmp/${marker}`)).output).toBe(
      `/tmp/${marker}\n[exit code 0]`,
    );
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  it('ends & and nohup children with the call, through the PID namespace', async () => {
    const { ctx } = sandboxed();
    const marker = `${process.pid}.${Date.now() % 100000}`;
    const result = await bash(
      ctx,
      `nohup sleep 3${marker} >/dev/null 2>&1 & setsid sleep 4${marker} & echo started`,
    );
    expect(result.output).toBe('started\n[exit code 0]');
    await vi.waitFor(() => expect(hostProcessesWith(`sleep 3${marker}`)).toEqual([]));
    expect(hostProcessesWith(`sleep 4${marker}`)).toEqual([]);
  });

  it('has no network under --safety read-only, and the network otherwise', async () => {
    const server: Server = createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    try {
      expect((await bash(sandboxed().ctx, connect)).output).toBe('hello\n[exit code 0]');
      const offline = await bash(sandboxed({ readOnly: true }).ctx, connect);
      expect(offline.output).toMatch(/exit code 1\]$/);
      expect(offline.output).not.toContain('hello');
    } finally {
      server.close();
    }
  });

  it('under --safety read-only does not write the project either', async () => {
    const { ctx } = sandboxed({ readOnly: true });
    const result = await bash(ctx, 'echo x > new.txt');
    expect(existsSync(path.join(project.root, 'new.txt'))).toBe(false);
    expect(result.output).toContain(`sandbox: ${project.root}/new.txt is not writable (writable: /tmp)`);
  });

  it('roots a writer sandbox at its worktree: the worktree and git store are writable, the checkout is not', async () => {
    execFileSync('git', ['init', '-q', project.root]);
    execFileSync('git', [
      '-C',
      project.root,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'base',
    ]);
    const worktree = path.join(path.dirname(project.root), 'wt');
    execFileSync('git', ['-C', project.root, 'worktree', 'add', '-q', '-b', 'cadre-task-x', worktree]);
    const writer = sandboxAt(sandboxed().sandbox, worktree);
    const ctx = createToolContext({ root: worktree, sandbox: writer });
    const result = await bash(
      ctx,
      'echo w > w.txt && git add w.txt && git -c user.name=t -c user.email=t@t commit -qm w && echo committed; touch ../project/escape',
    );
    expect(result.output).toContain('committed');
    expect(existsSync(path.join(project.root, 'escape'))).toBe(false);
    expect((await bash(ctx, 'echo x > ../project/.git/hooks/post-commit')).output).toContain(
      'Read-only file system',
    );
  });
});
