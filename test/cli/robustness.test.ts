import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { makeProject, REPO_ROOT, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

/** A main agent that starts one background subagent whose model never answers in time. */
async function slowBackgroundTask() {
  const server = await scriptedServer(
    script()
      .rule({ system: 'You are slow.' })
      .turn((t) => t.delay(30_000).text('never'))
      .rule()
      .turn((t) => t.tool('task', { agent: 'slow', prompt: 'wait', background: true }))
      .text('waiting'),
  );
  const p = project({
    files: { '.cadre/agents/slow.md': '---\nsubagent_tools: readonly\n---\nYou are slow.\n' },
    config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
  });
  return { server, p };
}

describe('headless robustness', () => {
  it('reads --permissions from where cadre was started, not from the --cwd project', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'touch marker.txt' }))
        .text('done'),
    );
    const target = project({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    writeFileSync(target.path('policy.json'), JSON.stringify({ allow: ['bash'] }));
    const here = project({});
    writeFileSync(here.path('policy.json'), JSON.stringify({ deny: ['bash'] }));
    const run = await runCadre(['-p', 'x', '--yes', '--cwd', target.dir, '--permissions', 'policy.json'], {
      cwd: here.dir,
      env: { CADRE_CONFIG_DIR: target.configDir },
    });
    expect(run.code).toBe(0);
    expect(existsSync(target.path('marker.txt'))).toBe(false);
    expect(server.requests[1].view.messages.at(-1)?.text).toContain(join(here.dir, 'policy.json'));
  });

  it('takes the task from any position: -p first, flags between, or the task first', async () => {
    const server = await scriptedServer(script().text('hi').text('hi').text('hi'));
    const p = project({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    for (const args of [
      ['-p', '--output-format', 'json', 'say', 'hi'],
      ['say hi', '-p'],
      ['-p', 'say hi', '--output-format', 'json'],
    ]) {
      const run = await runCadre(args, { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
      expect(run.code).toBe(0);
    }
    expect(server.requests.map((r) => r.view.messages[0].text)).toEqual(['say hi', 'say hi', 'say hi']);
  });

  it('a start that fails leaves no empty session for --continue to pick up', async () => {
    const server = await scriptedServer(
      script().rule({ last_user: 'again' }).text('continued').rule().text('first'),
    );
    const p = project({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    const env = { CADRE_CONFIG_DIR: p.configDir };
    expect((await runCadre(['-p', 'first'], { cwd: p.dir, env })).code).toBe(0);
    const failed = await runCadre(['-p', 'x', '--permissions', 'missing.json'], { cwd: p.dir, env });
    expect(failed.code).toBe(2);
    expect((await runCadre(['-p', 'again', '--continue'], { cwd: p.dir, env })).code).toBe(0);
    expect(server.requests.at(-1)?.view.messages.map((m) => m.text)).toEqual(['first', 'first', 'again']);
  });

  it('an unset api_key_env is bad configuration naming the variable, not a silent fallback', async () => {
    const p = project({
      config: {
        provider: 'a',
        providers: {
          a: { type: 'anthropic', model: 'claude-haiku-4-5', api_key_env: 'CADRE_TEST_UNSET_KEY' },
        },
      },
    });
    const run = await runCadre(['-p', 'hi'], {
      cwd: p.dir,
      env: {
        CADRE_CONFIG_DIR: p.configDir,
        CADRE_TEST_UNSET_KEY: undefined,
        ANTHROPIC_API_KEY: 'other-account',
      },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('CADRE_TEST_UNSET_KEY (api_key_env) is not set');
  });

  it('explain refuses a call it cannot read with exit 2', async () => {
    for (const call of ['bash(git', '(ls)', 'bash git']) {
      const run = await runCadre(['permissions', 'explain', call]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('cannot read the call');
    }
  });

  it('a turn cap hit while a background task runs records it cancelled, with no crash', async () => {
    const { p } = await slowBackgroundTask();
    const run = await runCadre(['-p', 'go', '--max-turns', '1', '--output-format', 'json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const out = JSON.parse(run.stdout);
    expect(out.stop_reason).toBe('max_turns');
    const store = openSessionStore(p.configDir);
    try {
      expect(store.listTasks().map((t) => t.status)).toEqual(['cancelled']);
    } finally {
      store.close();
    }
  });

  it('SIGINT while waiting for a background task ends the run as cancelled, exit 1', async () => {
    const { server, p } = await slowBackgroundTask();
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'cadre.js'), '-p', 'go', '--output-format', 'json'],
      {
        cwd: p.dir,
        env: { ...process.env, CADRE_CONFIG_DIR: p.configDir },
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await server.waitForRequests(3, 10_000);
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ is_error: true, stop_reason: 'cancelled' });
    expect(out.subagents.map((s: { status: string }) => s.status)).toEqual(['cancelled']);
  });

  it('a failing context compaction is a warning and the run goes on', async () => {
    const builder = script();
    for (let i = 0; i < 5; i++) builder.turn((t) => t.tool('read', { path: 'a.txt' }).usage(900, 10));
    builder.text('finished anyway');
    const main = await scriptedServer(builder);
    const summarizer = await scriptedServer(script().turn((t) => t.error(400, 'summaries are broken')));
    const p = project({
      files: { 'a.txt': 'a\n' },
      config: {
        provider: 'main',
        providers: {
          main: { ...scriptedProviderAlias(main), context_window: 1000 },
          summ: scriptedProviderAlias(summarizer),
        },
        summarization_provider: 'summ',
      },
    });
    const run = await runCadre(['-p', 'go', '--trust-project'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('finished anyway');
    expect(run.stderr).toContain('context compaction failed, continuing without it');
    expect(run.stderr).toContain('summaries are broken');
  });

  it('a write after a symlink made earlier in the same turn is judged by where the link points', async () => {
    const outside = project({});
    writeFileSync(outside.path('victim.txt'), 'untouched\n');
    const server = await scriptedServer(
      script()
        .turn((t) =>
          t
            .tool('bash', { command: `ln -s ${outside.path('victim.txt')} link.txt` })
            .tool('write', { path: 'link.txt', content: 'overwritten\n' }),
        )
        .text('done'),
    );
    const p = project({ config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } } });
    const run = await runCadre(['-p', 'go', '--yes'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(readFileSync(outside.path('victim.txt'), 'utf8')).toBe('untouched\n');
    const results = server.requests[1].view.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    // Making a link to an outside file is itself an outside access (issue 15): refused before it exists.
    expect(results[0]).toMatch(/^Permission denied.*outside the project/);
    expect(results[1]).not.toContain('overwritten');
  });
});
