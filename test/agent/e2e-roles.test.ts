import { describe, expect, it, onTestFinished } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

// Role keys are read from a trusted project's config only (issue 15): these runs trust their project.
describe('role routing end to end (SPEC 4.3)', () => {
  it('compacts a conversation near its context window through summarization_provider; the session keeps everything', async () => {
    // After compaction the conversation restarts from the summary, so turns are counted from there.
    const builder = script().rule({ any: 'SUMMARY: a.txt was read' });
    for (let i = 0; i < 8; i++) builder.turn((t) => t.text('finished after compaction').usage(100, 10));
    builder.rule();
    for (let i = 0; i < 5; i++) builder.turn((t) => t.tool('read', { path: 'a.txt' }).usage(900, 10));
    const main = await scriptedServer(builder);
    const summarizer = await scriptedServer(script().text('SUMMARY: a.txt was read five times'));
    const p = project({
      files: { 'a.txt': 'alpha\n' },
      config: {
        provider: 'main',
        providers: {
          main: { ...scriptedProviderAlias(main), context_window: 1000 },
          summ: scriptedProviderAlias(summarizer, 'summary-model'),
        },
        summarization_provider: 'summ',
      },
    });
    const run = await runCadre(
      ['-p', 'read a.txt repeatedly', '--output-format', 'json', '--trust-project'],
      {
        cwd: p.dir,
        env: { CADRE_CONFIG_DIR: p.configDir },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(summarizer.requests).toHaveLength(1);
    const summaryRequest = summarizer.requests[0].view;
    expect(summaryRequest.model).toBe('summary-model');
    expect(summaryRequest.system).toContain('Summarize the conversation');
    expect(summaryRequest.messages[0].text).toContain('read a.txt repeatedly');
    const after = main.requests.find((r) =>
      r.view.messages.some((m) => m.text.includes('<conversation-summary>')),
    );
    expect(after).toBeDefined();
    expect(after!.view.messages[0].text).toContain('SUMMARY: a.txt was read five times');
    const out = JSON.parse(run.stdout);
    expect(out.result).toBe('finished after compaction');
    const store = openSessionStore(p.configDir);
    try {
      const stored = store.loadMessages(out.session_id);
      expect(stored.length).toBeGreaterThan(after!.view.messages.length);
      expect(stored[0]).toEqual({ role: 'user', content: 'read a.txt repeatedly' });
    } finally {
      store.close();
    }
  });

  it('escalates one turn to escalation_provider after repeated unusable tool input', async () => {
    const main = await scriptedServer(
      script()
        .turn((t) => t.rawTool('read', '{"path": '))
        .turn((t) => t.rawTool('read', '{"path": ')),
    );
    // The escalated request carries two rounds of tool results, so it is the strong script's turn 2.
    const strong = await scriptedServer(
      script().text('unused').text('unused').text('the strong model answers'),
    );
    const p = project({
      config: {
        provider: 'main',
        providers: {
          main: scriptedProviderAlias(main),
          strong: scriptedProviderAlias(strong, 'strong-model'),
        },
        escalation_provider: 'strong',
      },
    });
    const run = await runCadre(['-p', 'go', '--trust-project'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('the strong model answers');
    expect(main.requests).toHaveLength(2);
    expect(strong.requests).toHaveLength(1);
    expect(strong.requests[0].view.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(run.stderr).toContain('escalating to strong (openai-compatible:strong-model)');
  });

  it('does not escalate when no escalation_provider is configured', async () => {
    const main = await scriptedServer(
      script()
        .turn((t) => t.rawTool('read', '{'))
        .turn((t) => t.rawTool('read', '{'))
        .turn((t) => t.text('recovered alone')),
    );
    const p = project({ config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } } });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('recovered alone');
    expect(run.stderr).not.toContain('escalating');
  });
});
