import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { RECONCILIATION_HEADER } from '../../src/subagent/reconciliation.js';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const RESEARCHER = '---\ndescription: reads\nsubagent_tools: readonly\n---\nYou are the researcher.\n';
const IMPLEMENTER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are the implementer.\n';

function project(server: ScriptedServer, config: Record<string, unknown>, git = true): TestProject {
  const p = makeProject({
    git,
    files: {
      'README.md': 'hello\n',
      '.cadre/agents/researcher.md': RESEARCHER,
      '.cadre/agents/implementer.md': IMPLEMENTER,
    },
    config: { provider: 'main', providers: { main: scriptedProviderAlias(server) }, ...config },
  });
  onTestFinished(() => p.cleanup());
  return p;
}

function cadre(p: TestProject, args: string[]) {
  return runCadre(args, { cwd: p.dir, env: { CADRE_CONFIG_DIR: p.configDir }, timeoutMs: 60_000 });
}

/** The texts of every user message the main agent was sent carrying a batch reconciliation. */
function reconciliations(server: ScriptedServer): string[] {
  return server.requests
    .filter((r) => r.view.system.includes('# Coordinated dispatch'))
    .flatMap((r) =>
      r.view.messages.filter((m) => m.role === 'user' && m.text.includes(RECONCILIATION_HEADER)),
    )
    .map((m) => m.text);
}

describe('subagent_dispatch_strategy at start-up', () => {
  it('full without a readwrite tier is exit 2 naming the missing tier', async () => {
    const server = await scriptedServer(script().text('never asked'));
    const p = project(server, {
      subagent_dispatch_strategy: 'full',
      permission: { deny: ['task(implementer)', 'task(general)'] },
    });
    const run = await cadre(p, ['-p', 'go']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/subagent_dispatch_strategy "full".*missing tier: readwrite/);
    expect(server.requests).toHaveLength(0);
  });

  it('full under --safety read-only has no readwrite tier either (the floor strips writer tools)', async () => {
    const server = await scriptedServer(script().text('never asked'));
    const p = project(server, { subagent_dispatch_strategy: 'full' });
    const run = await cadre(p, ['-p', 'go', '--safety', 'read-only']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing tier: readwrite');
  });

  it('optional without the tiers warns once and runs with coordination off', async () => {
    const server = await scriptedServer(script().text('done'));
    const p = project(server, {
      subagent_dispatch_strategy: 'optional',
      permission: { deny: ['task(researcher)', 'task(explore)', 'task(review)', 'task(security-review)'] },
    });
    const run = await cadre(p, ['-p', 'go']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /warning: subagent_dispatch_strategy "optional".*missing tier: readonly.*coordinated dispatch is off/,
    );
    expect(server.requests[0].view.system).not.toContain('# Coordinated dispatch');
  });

  it('max_parallel_writers above max_subagent_concurrency is a configuration error (exit 2)', async () => {
    const server = await scriptedServer(script().text('never asked'));
    const p = project(server, { max_subagent_concurrency: 2, max_parallel_writers: 5 });
    const run = await cadre(p, ['-p', 'go']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('max_parallel_writers (5) may not be above max_subagent_concurrency (2)');
    expect(server.requests).toHaveLength(0);
  });

  it('an invalid value is off with a warning', async () => {
    const server = await scriptedServer(script().text('done'));
    const p = project(server, { subagent_dispatch_strategy: 'sometimes' });
    const run = await cadre(p, ['-p', 'go']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('subagent_dispatch_strategy "sometimes" is not one of off, optional, full');
    expect(server.requests[0].view.system).not.toContain('# Coordinated dispatch');
  });

  it('full with both tiers adds the coordinator contract listing the profiles of each tier', async () => {
    const server = await scriptedServer(script().text('done'));
    const p = project(server, { subagent_dispatch_strategy: 'full' });
    const run = await cadre(p, ['-p', 'go']);
    expect(run.code).toBe(0);
    const system = server.requests[0].view.system;
    expect(system).toContain('# Coordinated dispatch');
    expect(system).toMatch(/Readonly profiles[^\n]*\n(- [^\n]+\n)*- researcher: reads/);
    expect(system).toMatch(/Readwrite profiles[^\n]*\n[^\n]*\n(- [^\n]+\n)*- implementer: writes/);
  });
});

describe('coordinated batches headless', () => {
  it('delivers a researcher and a slower serialized writer in one reconciliation, after both finished', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the researcher.' })
        .text('The README says hello.')
        .rule({ system: 'You are the implementer.' })
        .turn((t) => t.delay(1000).tool('write', { path: 'notes.txt', content: 'written\n' }))
        .turn((t) =>
          t.tool('bash', {
            command: 'git add notes.txt && git -c user.name=w -c user.email=w@x commit -qm "Add notes"',
          }),
        )
        .text('Committed notes.txt.')
        .rule({ last_user: 'Coordinator batch is complete' })
        .text('Both done; nothing left.')
        .rule()
        .turn((t) =>
          t
            .tool('task', { agent: 'researcher', prompt: 'What does\nthe README say?', background: true })
            .tool('task', { agent: 'implementer', prompt: 'Add notes.txt and commit it' }),
        )
        .text('Waiting for the batch.'),
    );
    const p = project(server, { subagent_dispatch_strategy: 'full', subagent_write_isolation: 'serialize' });
    const run = await cadre(p, ['-p', 'do the work', '--yes', '--output-format', 'json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.result).toBe('Both done; nothing left.');
    const [researcher, writer] = out.subagents;
    // The foreground writer call was run in the background, and its tool result said so.
    const mainRequests = server.requests.filter((r) => r.view.messages[0].text === 'do the work');
    const dispatchResults = mainRequests[1].view.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(dispatchResults[1]).toContain('Readwrite profiles always run in the background');
    expect(dispatchResults[0]).toContain('delivered at the batch reconciliation');
    // The barrier: the first request carrying any child result carries both, once.
    const carrying = server.requests.filter((r) =>
      r.view.messages.some((m) => m.role === 'user' && m.text.includes(`[task ${researcher.id}`)),
    );
    expect(carrying.length).toBeGreaterThan(0);
    const [text] = reconciliations(server);
    expect(reconciliations(server)).toHaveLength(1);
    expect(text).toContain(
      [
        RECONCILIATION_HEADER,
        '',
        `[task ${researcher.id} (readonly)] prompt: What does the README say?`,
        'completed: The README says hello.',
        '',
        `[task ${writer.id} (readwrite)] prompt: Add notes.txt and commit it`,
        'writer isolation: serialized parent checkout',
        'completed: Committed notes.txt.',
      ].join('\n'),
    );
    expect(readFileSync(p.path('notes.txt'), 'utf8')).toBe('written\n');
  });

  it('a dirty parent checkout fails a serialized writer with the SPEC message and touches nothing', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the implementer.' })
        .text('should never run')
        .rule({ last_user: 'Coordinator batch is complete' })
        .text('The writer could not run.')
        .rule()
        .turn((t) => t.tool('task', { agent: 'implementer', prompt: 'change things', background: true }))
        .text('waiting'),
    );
    for (const isolation of ['serialize', 'auto'] as const) {
      const p = project(server, { subagent_dispatch_strategy: 'full', subagent_write_isolation: isolation });
      execFileSync('sh', ['-c', 'echo edited >> README.md'], { cwd: p.dir });
      const run = await cadre(p, ['-p', 'go', '--yes']);
      expect(run.code).toBe(0);
      expect(reconciliations(server).at(-1)).toContain(
        'failed: cannot run a read-write subagent in a dirty parent checkout: commit or stash first',
      );
      expect(readFileSync(p.path('README.md'), 'utf8')).toBe('hello\nedited\n');
    }
    expect(server.requests.filter((r) => r.view.system.includes('You are the implementer.'))).toHaveLength(0);
  });

  it('worktree mode outside a git repository fails the dispatch with the reason', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the implementer.' })
        .text('should never run')
        .rule()
        .turn((t) => t.tool('task', { agent: 'implementer', prompt: 'change things', background: true }))
        .text('The dispatch failed.'),
    );
    const p = project(
      server,
      { subagent_dispatch_strategy: 'full', subagent_write_isolation: 'worktree' },
      false,
    );
    const run = await cadre(p, ['-p', 'go', '--yes']);
    expect(run.code).toBe(0);
    const result = server.requests.at(-1)?.view.messages.find((m) => m.role === 'tool')?.text ?? '';
    expect(result).toMatch(
      /subagent_write_isolation "worktree": cannot isolate the writer: .* is not inside a git repository/,
    );
    expect(existsSync(p.path('.git'))).toBe(false);
  });

  it('a repository with no commits: worktree mode fails the dispatch, auto serializes with a warning', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the implementer.' })
        .text('did it')
        .rule({ last_user: 'Coordinator batch is complete' })
        .text('reconciled')
        .rule()
        .turn((t) => t.tool('task', { agent: 'implementer', prompt: 'change things', background: true }))
        .text('waiting'),
    );
    const worktree = project(
      server,
      { subagent_dispatch_strategy: 'full', subagent_write_isolation: 'worktree' },
      false,
    );
    execFileSync('git', ['init', '-q'], { cwd: worktree.dir });
    const refused = await cadre(worktree, ['-p', 'go', '--yes']);
    expect(refused.code).toBe(0);
    const dispatch = server.requests.find((r) => r.view.messages.some((m) => m.role === 'tool'));
    expect(dispatch?.view.messages.find((m) => m.role === 'tool')?.text).toMatch(
      /cannot isolate the writer: the repository at .* has no commits yet, so no worktree can be made/,
    );
    const auto = project(server, { subagent_dispatch_strategy: 'full' }, false);
    execFileSync('git', ['init', '-q'], { cwd: auto.dir });
    const serialized = await cadre(auto, ['-p', 'go', '--yes']);
    expect(serialized.code).toBe(0);
    expect(serialized.stderr).toMatch(
      /warning: read-write subagents run serialized in the parent checkout: the repository at .* has no commits yet/,
    );
    // Its files are all untracked: the parent is dirty, so the serialized writer is refused too.
    expect(reconciliations(server).at(-1)).toContain(
      'failed: cannot run a read-write subagent in a dirty parent checkout: commit or stash first',
    );
  });

  it('outside a git repository auto runs writers serialized, with one warning', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the implementer.' })
        .text('did it')
        .rule({ last_user: 'Coordinator batch is complete' })
        .text('reconciled')
        .rule()
        .turn((t) =>
          t
            .tool('task', { agent: 'implementer', prompt: 'one', background: true })
            .tool('task', { agent: 'implementer', prompt: 'two', background: true }),
        )
        .text('waiting'),
    );
    const p = project(server, { subagent_dispatch_strategy: 'full' }, false);
    const run = await cadre(p, ['-p', 'go', '--yes']);
    expect(run.code).toBe(0);
    expect(
      run.stderr.match(
        /read-write subagents run serialized in the parent checkout: .* is not inside a git repository/g,
      ),
    ).toHaveLength(1);
  });
});
