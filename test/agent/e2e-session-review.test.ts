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

const writeThenAnswer = () =>
  script()
    .rule({ system: 'You review the changes' })
    .text('No findings.')
    .rule()
    .turn((t) => t.tool('write', { path: 'src/new.txt', content: 'hello review\n' }))
    .text('wrote it');

describe('session_review: the session diff reviewed at the end (SPEC 4.3, issue 16 B7)', {
  timeout: 4 * LOADED_MS,
}, () => {
  it('review_provider reads the tasks and the diff of what the session changed; its findings are `review` in JSON', async () => {
    const main = await scriptedServer(writeThenAnswer());
    const reviewer = await scriptedServer(script().text('1. src/new.txt:1 (low) the greeting is untested'));
    const p = project({
      files: { 'src/old.txt': 'unchanged\n', 'dirty.txt': 'was here before\n' },
      config: {
        provider: 'main',
        providers: {
          main: scriptedProviderAlias(main),
          rev: scriptedProviderAlias(reviewer, 'review-model'),
        },
        review_provider: 'rev',
        session_review: true,
      },
    });
    const run = await runCadre(
      ['--trust-project', '-p', 'add a greeting file', '--yes', '--output-format', 'json'],
      {
        cwd: p.dir,
        env: { CADRE_CONFIG_DIR: p.configDir },
        timeoutMs: LOADED_MS,
      },
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.result).toBe('wrote it');
    expect(out.review).toEqual({
      provider: 'rev',
      model: 'review-model',
      files: ['src/new.txt'],
      findings: '1. src/new.txt:1 (low) the greeting is untested',
    });
    expect(reviewer.requests).toHaveLength(1);
    const seen = reviewer.requests[0].view;
    expect(seen.system).toContain('You review the changes');
    expect(seen.messages[0].text).toContain('<task>\nadd a greeting file\n</task>');
    expect(seen.messages[0].text).toContain('+hello review');
    // Files that were there before the session (even if not committed) are not the session's changes.
    expect(seen.messages[0].text).not.toContain('was here before');
    expect(seen.messages[0].text).not.toContain('unchanged');
  });

  it('falls back to the main provider and prints the findings on stderr in text mode', async () => {
    const main = await scriptedServer(writeThenAnswer());
    const p = project({
      git: true,
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) }, session_review: true },
    });
    const run = await runCadre(['--trust-project', '-p', 'add a greeting file', '--yes'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('wrote it');
    expect(run.stderr).toContain('cadre: session review by main (1 file(s) changed):\nNo findings.');
    expect(main.requests).toHaveLength(3);
  });

  it('reviews nothing when the session changed nothing, and is off unless session_review is true', async () => {
    const main = await scriptedServer(script().text('nothing to do'));
    const reviewer = await scriptedServer(script().text('should not be asked'));
    const providers = { main: scriptedProviderAlias(main), rev: scriptedProviderAlias(reviewer) };
    const on = project({
      config: { provider: 'main', providers, review_provider: 'rev', session_review: true },
    });
    const first = await runCadre(['--trust-project', '-p', 'look around', '--output-format', 'json'], {
      cwd: on.dir,
      env: { CADRE_CONFIG_DIR: on.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(JSON.parse(first.stdout).review).toEqual({ files: [], findings: 'no changes to review' });

    const off = project({
      files: { 'a.txt': 'a\n' },
      config: { provider: 'main', providers, review_provider: 'rev' },
    });
    const second = await runCadre(['--trust-project', '-p', 'look around', '--output-format', 'json'], {
      cwd: off.dir,
      env: { CADRE_CONFIG_DIR: off.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(JSON.parse(second.stdout).review).toBeUndefined();
    expect(reviewer.requests).toHaveLength(0);
  });

  it('a session_review that is not true or false is a config error naming the key', async () => {
    const p = project({ config: { session_review: 'yes' } });
    const run = await runCadre(['--trust-project', '-p', 'go'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: LOADED_MS,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('session_review');
  });
});
