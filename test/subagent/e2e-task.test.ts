import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

function toolResultsOf(server: ScriptedServer, seq: number): string[] {
  return server.requests[seq].view.messages.filter((m) => m.role === 'tool').map((m) => m.text);
}

function requestsWithSystem(server: ScriptedServer, needle: string) {
  return server.requests.filter((r) => r.view.system.includes(needle));
}

const RESEARCHER = [
  '---',
  'description: reads code and reports',
  'model: cheap',
  'subagent_tools: readonly',
  'deny_tools: [webfetch]',
  'subagent_deny: [websearch]',
  '---',
  'You are the researcher.',
  '',
].join('\n');

describe('task tool end to end', () => {
  it('runs a readonly profile on its own route with its body as system prompt and its tool set', async () => {
    const main = await scriptedServer(
      script()
        .rule({ first_user: 'investigate' })
        .turn((t) =>
          t.tool('task', {
            agent: 'researcher',
            prompt: 'What does notes.txt say?',
            description: 'read notes',
          }),
        )
        .turn((t) => t.text('The researcher says: the secret is 42.')),
    );
    const cheap = await scriptedServer(
      script()
        .rule({ system: 'You are the researcher.' })
        .turn((t) => t.tool('read', { path: 'notes.txt' }))
        .turn((t) => t.text('notes.txt says the secret is 42')),
    );
    const p = project({
      files: { 'notes.txt': 'the secret is 42\n', '.cadre/agents/researcher.md': RESEARCHER },
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), cheap: scriptedProviderAlias(cheap, 'cheap-model') },
      },
    });
    const run = await runCadre(['-p', 'investigate the notes', '--output-format', 'json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(cheap.requests).toHaveLength(2);
    const child = cheap.requests[0];
    expect(child.view.model).toBe('cheap-model');
    expect(child.view.system).toBe('You are the researcher.');
    expect(child.view.messages[0]).toMatchObject({ role: 'user', text: 'What does notes.txt say?' });
    expect(child.view.tools).toEqual(['read', 'grep', 'glob', 'find_files', 'list_dir', 'repo_overview']);
    expect(toolResultsOf(cheap, 1).join('\n')).toContain('the secret is 42');
    expect(main.requests).toHaveLength(2);
    expect(main.requests[0].view.tools).toContain('task');
    expect(toolResultsOf(main, 1).join('\n')).toContain('notes.txt says the secret is 42');
    const out = JSON.parse(run.stdout);
    expect(out.subagents).toEqual([
      expect.objectContaining({
        profile: 'researcher',
        status: 'completed',
        background: false,
        model: 'cheap-model',
        usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
        cost_usd: null,
      }),
    ]);
    expect(out.subagents[0].id).toMatch(/^[0-9a-f]{12}$/);
    expect(out.subagents[0].usage.input_tokens).toBeGreaterThan(0);
    // The session's usage rolls the child's up with the main agent's.
    expect(out.usage.input_tokens).toBeGreaterThan(out.subagents[0].usage.input_tokens);
    expect(out.usage.output_tokens).toBeGreaterThan(out.subagents[0].usage.output_tokens);
  });

  it('advertises profile names as an enum and answers an unknown name with the known ones', async () => {
    const main = await scriptedServer(
      script()
        .turn((t) => t.tool('task', { agent: 'nope', prompt: 'x' }))
        .turn((t) => t.text('ok')),
    );
    const p = project({
      files: { '.cadre/agents/researcher.md': RESEARCHER },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    const body = main.requests[0].body as {
      tools: { function: { name: string; parameters: { properties: { agent: { enum: string[] } } } } }[];
    };
    const task = body.tools.find((t) => t.function.name === 'task');
    expect(task?.function.parameters.properties.agent.enum).toEqual([
      'explore',
      'general',
      'researcher',
      'review',
      'security-review',
    ]);
    expect(toolResultsOf(main, 1)[0]).toBe(
      'Unknown agent "nope". Known agents: explore, general, researcher, review, security-review.',
    );
  });

  it('sends a toolless profile its reasoning effort and temperature in one model call', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are the thinker.' })
        .text('deep thought: 42')
        .rule()
        .turn((t) => t.tool('task', { agent: 'thinker', prompt: 'think' }))
        .turn((t) => t.text('done')),
    );
    const p = project({
      files: {
        '.cadre/agents/thinker.md': '---\nreasoning: high\ntemperature: 0.2\n---\nYou are the thinker.\n',
      },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    const child = requestsWithSystem(main, 'You are the thinker.');
    expect(child).toHaveLength(1);
    expect(child[0].view.tools).toEqual([]);
    expect(child[0].view.temperature).toBe(0.2);
    expect(child[0].view.reasoning?.effort).toBe('high');
    expect(toolResultsOf(main, 2)[0]).toContain('deep thought: 42');
  });

  it('runs four background tasks in parallel and resumes the idle main agent with their results', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are the worker.' })
        .turn((t) => t.delay(1000).text('worker finished'))
        .rule({ last_user: 'Background task' })
        .text('all four reported back')
        .rule()
        .turn((t) => {
          for (let i = 0; i < 4; i++)
            t.tool('task', { agent: 'worker', prompt: `job ${i}`, background: true });
          return t;
        })
        .turn((t) => t.text('waiting for the workers')),
    );
    const p = project({
      files: { '.cadre/agents/worker.md': '---\nsubagent_tools: readonly\n---\nYou are the worker.\n' },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'go', '--output-format', 'json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const children = requestsWithSystem(main, 'You are the worker.');
    expect(children).toHaveLength(4);
    // In parallel: every child's request arrived before any of them was answered (order, not a clock).
    const lastStart = Math.max(...children.map((r) => r.startedAt));
    const firstEnd = Math.min(...children.map((r) => r.endedAt ?? Number.POSITIVE_INFINITY));
    expect(lastStart).toBeLessThan(firstEnd);
    const out = JSON.parse(run.stdout);
    expect(out.result).toBe('all four reported back');
    expect(out.subagents).toHaveLength(4);
    for (const s of out.subagents) expect(s).toMatchObject({ status: 'completed', background: true });
    // Every result reaches the main agent exactly once, in one or more reminder messages.
    const last = main.requests.at(-1)!;
    const reminders = last.view.messages.filter(
      (m) => m.role === 'user' && m.text.includes('<system-reminder>'),
    );
    const delivered = reminders.flatMap(
      (m) => m.text.match(/Background task [0-9a-f]{12} \(worker\) completed:\nworker finished/g) ?? [],
    );
    expect(delivered).toHaveLength(4);
  });

  it('queues past max_subagent_concurrency: six tasks complete, never more than two at once', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are the worker.' })
        .turn((t) => t.delay(300).text('ok'))
        .rule({ last_user: 'Background task' })
        .text('done')
        .rule()
        .turn((t) => {
          for (let i = 0; i < 6; i++)
            t.tool('task', { agent: 'worker', prompt: `job ${i}`, background: true });
          return t;
        })
        .turn((t) => t.text('waiting')),
    );
    const p = project({
      files: { '.cadre/agents/worker.md': '---\nsubagent_tools: readonly\n---\nYou are the worker.\n' },
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main) },
        max_subagent_concurrency: 2,
      },
    });
    const run = await runCadre(['-p', 'go', '--output-format', 'stream-json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const children = requestsWithSystem(main, 'You are the worker.');
    expect(children).toHaveLength(6);
    for (const r of children) {
      const overlapping = children.filter(
        (o) => o.startedAt <= r.startedAt && (o.endedAt ?? 0) > r.startedAt,
      );
      expect(overlapping.length).toBeLessThanOrEqual(2);
    }
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const queued = events.filter((e) => e.type === 'subagent_queued').map((e) => e.position);
    expect(queued).toEqual([1, 2, 3, 4]);
    const ended = events.filter((e) => e.type === 'subagent_end');
    expect(ended.map((e) => e.status)).toEqual(Array(6).fill('completed'));
    const mainSecond = main.requests.filter((r) => !r.view.system.includes('You are the worker.'))[1];
    const firstResults = mainSecond.view.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(firstResults.filter((t) => /queued, position \d/.test(t))).toHaveLength(4);
    expect(firstResults.join('\n')).toContain('queued, position 4');
  });

  it('child events appear in stream-json labeled with the child id', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are the researcher.' })
        .turn((t) => t.tool('read', { path: 'notes.txt' }))
        .turn((t) => t.text('read it'))
        .rule()
        .turn((t) => t.tool('task', { agent: 'researcher', prompt: 'read notes' }))
        .turn((t) => t.text('done')),
    );
    const p = project({
      files: {
        'notes.txt': 'n\n',
        '.cadre/agents/researcher.md': '---\nsubagent_tools: readonly\n---\nYou are the researcher.\n',
      },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'go', '--output-format', 'stream-json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const start = events.find((e) => e.type === 'subagent_start');
    expect(start).toMatchObject({ agent: 'main', profile: 'researcher' });
    const childTypes = events.filter((e) => e.agent === start.taskId).map((e) => e.type);
    expect(childTypes).toEqual(
      expect.arrayContaining(['turn_start', 'tool_call_start', 'tool_call_end', 'text_delta', 'turn_end']),
    );
    expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({
      taskId: start.taskId,
      status: 'completed',
    });
  });

  it('stores a result over 8 KiB whole and shows the model head, tail and a readable reference', async () => {
    const big = `BEGIN ${'x'.repeat(20_000)} END`;
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are the talker.' })
        .text(big)
        .rule()
        .turn((t) => t.tool('task', { agent: 'talker', prompt: 'talk' }))
        .turn((t) => t.text('done')),
    );
    const p = project({
      files: { '.cadre/agents/talker.md': 'You are the talker.\n' },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'go', '--output-format', 'json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const shown = toolResultsOf(main, 2)[0];
    expect(shown).toContain('BEGIN');
    expect(shown).toContain('END');
    expect(shown.length).toBeLessThan(8 * 1024);
    const id = JSON.parse(run.stdout).subagents[0].id;
    expect(shown).toContain(`.cadre/tasks/${id}.md`);
    expect(readFileSync(p.path(`.cadre/tasks/${id}.md`), 'utf8')).toBe(big);
  });

  it('refuses an invalid effort from subagent_efforts with a clear error to the model', async () => {
    const main = await scriptedServer(
      script()
        .turn((t) => t.tool('task', { agent: 'researcher', prompt: 'x' }))
        .text('ok'),
    );
    const p = project({
      files: { '.cadre/agents/researcher.md': RESEARCHER },
      config: {
        provider: 'main',
        providers: { main: scriptedProviderAlias(main), cheap: scriptedProviderAlias(main) },
        subagent_efforts: { researcher: 'extreme' },
      },
    });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(toolResultsOf(main, 1)[0]).toBe(
      'Cannot start the subagent: invalid effort "extreme" from subagent_efforts (expected one of off, minimal, low, medium, high, xhigh, max).',
    );
  });

  it('rejects an effort outside the scale in the call itself', async () => {
    const main = await scriptedServer(
      script()
        .turn((t) => t.tool('task', { prompt: 'x', effort: 'ultra' }))
        .text('ok'),
    );
    const p = project({ config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } } });
    const run = await runCadre(['-p', 'go'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir } });
    expect(run.code).toBe(0);
    expect(toolResultsOf(main, 1)[0]).toMatch(/^Invalid input for tool "task":[\s\S]*effort/);
  });

  it('gives the review built-in its output cap and a parent facts pack, and nothing else of the conversation', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'code reviewer' })
        .text('no findings')
        .rule()
        .turn((t) =>
          t.text('I will keep the parser and fix the off-by-one.').tool('read', { path: 'parse.ts' }),
        )
        .turn((t) => t.tool('task', { agent: 'review', prompt: 'review parse.ts' }))
        .text('reviewed'),
    );
    const p = project({
      files: { 'parse.ts': 'export const x = 1;\n' },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    const run = await runCadre(['-p', 'fix the parser bug'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const child = requestsWithSystem(main, 'code reviewer');
    expect(child).toHaveLength(1);
    expect(child[0].view.maxTokens).toBe(2048);
    expect(child[0].view.messages).toHaveLength(1);
    const first = child[0].view.messages[0].text;
    expect(first).toContain('<parent-facts>');
    expect(first).toContain('Request: fix the parser bug');
    expect(first).toContain('I will keep the parser and fix the off-by-one.');
    expect(first).toContain('Files involved: parse.ts');
    expect(first.endsWith('review parse.ts')).toBe(true);
    expect(first).not.toContain('export const x');
  });
});

describe('read-write subagents in the parent checkout', () => {
  it('run one at a time (serialized), readers alongside', async () => {
    const main = await scriptedServer(
      script()
        .rule({ system: 'You are a writer.' })
        .turn((t) => t.delay(300).text('wrote'))
        .rule({ system: 'You are a reader.' })
        .turn((t) => t.delay(300).text('read'))
        .rule({ last_user: 'Background task' })
        .text('done')
        .text('done')
        .text('done')
        .text('done')
        .rule()
        .turn((t) =>
          t
            .tool('task', { agent: 'writer', prompt: 'w1', background: true })
            .tool('task', { agent: 'writer', prompt: 'w2', background: true })
            .tool('task', { agent: 'reader', prompt: 'r1', background: true }),
        )
        .text('waiting'),
    );
    const p = makeProject({
      files: {
        '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are a writer.\n',
        '.cadre/agents/reader.md': '---\nsubagent_tools: readonly\n---\nYou are a reader.\n',
      },
      config: { provider: 'main', providers: { main: scriptedProviderAlias(main) } },
    });
    onTestFinished(() => p.cleanup());
    const run = await runCadre(['-p', 'go', '--output-format', 'stream-json'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    const writers = requestsWithSystem(main, 'You are a writer.');
    const [reader] = requestsWithSystem(main, 'You are a reader.');
    expect(writers).toHaveLength(2);
    const [first, second] = [...writers].sort((a, b) => a.startedAt - b.startedAt);
    expect(second.startedAt).toBeGreaterThanOrEqual(first.endedAt ?? Number.POSITIVE_INFINITY);
    expect(reader.startedAt).toBeLessThan(first.endedAt ?? 0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The second writer waits for the whole-workspace claim the first holds on the shared checkout.
    const firstWriter = events.find((e) => e.type === 'subagent_start' && e.tier === 'readwrite');
    expect(events.filter((e) => e.type === 'subagent_queued')).toEqual([
      expect.objectContaining({ position: 1, cause: `claim: . held by ${firstWriter.taskId}` }),
    ]);
  });
});
