import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

/** Each cadre run may take this long on a loaded 2-core CI machine (the e2e suites run in parallel). */
const LOADED_MS = 90_000;

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

function globalConfig(dir: string, config: unknown): void {
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
}

async function runJson(dir: string, configDir: string, args: string[], trust = true) {
  const run = await runCadre(
    [...(trust ? ['--trust-project'] : []), '-p', ...args, '--output-format', 'json'],
    {
      cwd: dir,
      env: { CADRE_CONFIG_DIR: configDir },
      timeoutMs: LOADED_MS,
    },
  );
  return { run, out: run.stdout ? JSON.parse(run.stdout) : undefined };
}

describe('critic_provider reviews the final answer (SPEC 4.3, issue 16 B7)', {
  timeout: 4 * LOADED_MS,
}, () => {
  it('an approval leaves the answer as it is and puts the verdict in the JSON result', async () => {
    const main = await scriptedServer(script().text('the answer is 42'));
    const critic = await scriptedServer(script().text('VERDICT: approve\nIt answers the question.'));
    const p = project({
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), crit: scriptedProviderAlias(critic, 'critic-model') },
        critic_provider: 'crit',
      },
    });
    const { run, out } = await runJson(p.dir, p.configDir, ['what is six times seven']);
    expect(run.code).toBe(0);
    expect(out.result).toBe('the answer is 42');
    expect(out.critic).toEqual({
      verdict: 'approve',
      critique: 'It answers the question.',
      provider: 'crit',
      model: 'critic-model',
      revised: false,
    });
    expect(main.requests).toHaveLength(1);
    expect(critic.requests).toHaveLength(1);
    const seen = critic.requests[0].view;
    expect(seen.model).toBe('critic-model');
    expect(seen.system).toContain('VERDICT: reject');
    expect(seen.messages[0].text).toContain('<task>\nwhat is six times seven\n</task>');
    expect(seen.messages[0].text).toContain('<final-answer>\nthe answer is 42\n</final-answer>');
  });

  it('a rejection gives the main agent one more turn with the critique, and the revised answer is returned', async () => {
    const main = await scriptedServer(
      script().rule({ any: '<critic>' }).text('the answer is 42, because 6 × 7 = 42').rule().text('42'),
    );
    const critic = await scriptedServer(script().text('VERDICT: reject\nShow the working.'));
    const p = project({
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), crit: scriptedProviderAlias(critic) },
        critic_provider: 'crit',
      },
    });
    const { run, out } = await runJson(p.dir, p.configDir, ['what is six times seven']);
    expect(run.code).toBe(0);
    expect(out.result).toBe('the answer is 42, because 6 × 7 = 42');
    expect(out.critic).toMatchObject({ verdict: 'reject', critique: 'Show the working.', revised: true });
    expect(out.num_turns).toBe(2);
    // One critique only: the revised answer is not judged again.
    expect(critic.requests).toHaveLength(1);
    expect(main.requests).toHaveLength(2);
    const last = main.requests[1].view.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.text).toContain('<critic>\nShow the working.\n</critic>');
  });

  it('prints the verdict on stderr in text mode, and nothing of the critic when it is unset', async () => {
    const main = await scriptedServer(script().text('done'));
    const critic = await scriptedServer(script().text('approve'));
    const p = project({
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), crit: scriptedProviderAlias(critic) },
        critic_provider: 'crit',
      },
    });
    const text = await runCadre(['--trust-project', '-p', 'go'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(text.stdout.trim()).toBe('done');
    expect(text.stderr).toContain('cadre: critic (crit): approve');

    const alone = await scriptedServer(script().text('done'));
    const q = project({ config: { provider: 'main', providers: { main: scriptedProviderAlias(alone) } } });
    const { out } = await runJson(q.dir, q.configDir, ['go']);
    expect(out.critic).toBeUndefined();
    expect(out.approvals).toBeUndefined();
  });

  it('a critic that fails leaves the answer unreviewed with a warning, never a failed run', async () => {
    const main = await scriptedServer(script().text('done'));
    const critic = await scriptedServer(script().turn((t) => t.error(400, 'bad request')));
    const p = project({
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), crit: scriptedProviderAlias(critic) },
        critic_provider: 'crit',
      },
    });
    const { run, out } = await runJson(p.dir, p.configDir, ['go']);
    expect(run.code).toBe(0);
    expect(out.result).toBe('done');
    expect(out.critic).toBeUndefined();
    expect(run.stderr).toContain('critic_provider crit failed, the answer is returned unreviewed');
  });
});

describe('approval_provider decides asks no user can answer (SPEC 4.3, issue 16 B7)', {
  timeout: 4 * LOADED_MS,
}, () => {
  async function approvalRun(verdict: string, command: string, where: 'global' | 'project' = 'global') {
    const main = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command }))
        .text('finished'),
    );
    const approver = await scriptedServer(script().text(verdict));
    const providers = {
      main: scriptedProviderAlias(main),
      judge: scriptedProviderAlias(approver, 'judge-model'),
    };
    const p = project(
      where === 'project'
        ? { config: { provider: 'main', providers, approval_provider: 'judge' } }
        : { config: {} },
    );
    if (where === 'global')
      globalConfig(p.configDir, { provider: 'main', providers, approval_provider: 'judge' });
    const { run, out } = await runJson(p.dir, p.configDir, ['make the file'], where === 'global');
    return { p, run, out, approver };
  }

  it('an approved ask runs the call, with the reason in the JSON result', async () => {
    const { p, run, out, approver } = await approvalRun(
      'APPROVE: creating a file is part of the task',
      'touch made.txt',
    );
    expect(run.code).toBe(0);
    expect(existsSync(p.path('made.txt'))).toBe(true);
    expect(out.approvals).toEqual([
      {
        agent: 'main',
        tool: 'bash',
        input: { command: 'touch made.txt' },
        approved: true,
        reason: 'creating a file is part of the task',
        provider: 'judge',
      },
    ]);
    expect(out.permission_denials).toEqual([]);
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0].view.messages[0].text).toContain('touch made.txt');
  });

  it('a denied ask does not run, and the denial carries the model reason', async () => {
    const { p, out } = await approvalRun('DENY: not needed for the task', 'touch made.txt');
    expect(existsSync(p.path('made.txt'))).toBe(false);
    expect(out.approvals).toMatchObject([{ approved: false, reason: 'not needed for the task' }]);
    expect(out.permission_denials).toHaveLength(1);
    expect(out.permission_denials[0].reason).toContain(
      'approval_provider judge denied it: not needed for the task',
    );
  });

  it('an answer that names no decision denies', async () => {
    const { p, out } = await approvalRun('Sure, go ahead I guess', 'touch made.txt');
    expect(existsSync(p.path('made.txt'))).toBe(false);
    expect(out.approvals).toMatchObject([{ approved: false }]);
    expect(out.approvals[0].reason).toContain('gave no decision');
  });

  it('never decides what --yes could not approve: a path outside the project is denied without asking it', async () => {
    const outside = join(project({}).configDir, 'escaped.txt');
    const { out, approver } = await approvalRun('APPROVE: fine', `touch ${outside}`);
    expect(existsSync(outside)).toBe(false);
    expect(approver.requests).toHaveLength(0);
    expect(out.approvals).toEqual([]);
    expect(out.permission_denials).toHaveLength(1);
    expect(out.permission_denials[0].reason).not.toContain('pass --yes');
  });

  it('is ignored when set by an untrusted project config', async () => {
    const { p, run, out, approver } = await approvalRun('APPROVE: fine', 'touch made.txt', 'project');
    expect(approver.requests).toHaveLength(0);
    expect(existsSync(p.path('made.txt'))).toBe(false);
    expect(out.approvals).toBeUndefined();
    expect(run.stderr).toContain('the project is not trusted');
    expect(run.stderr).toContain('"approval_provider" ignored');
  });
});
