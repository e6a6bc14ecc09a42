import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { RECONCILIATION_HEADER } from '../../src/subagent/reconciliation.js';
import type { TestProject } from '../support/cli.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, jsonLines, servedProject, startCadre } from './harness.js';

const TIMEOUT = 90_000;
const RESEARCHER = '---\ndescription: reads\nsubagent_tools: readonly\n---\nYou are the researcher.\n';
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are the writer.\n';
const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

function coordinated(server: ScriptedServer, extra: Record<string, unknown> = {}): TestProject {
  const project = servedProject(server, {
    git: true,
    files: {
      'README.md': 'hello\n',
      '.cadre/agents/researcher.md': RESEARCHER,
      '.cadre/agents/writer.md': WRITER,
    },
    config: { subagent_dispatch_strategy: 'full', ...extra },
  });
  return project;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

function gitOk(dir: string, ...args: string[]): boolean {
  try {
    execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** User messages of the main agent carrying a reconciliation, in order. */
function reconciliations(server: ScriptedServer): string[] {
  return server.requests
    .filter((r) => r.view.messages[0]?.text.startsWith('go'))
    .map((r) => r.view.messages.at(-1))
    .filter((m) => m?.role === 'user' && m.text.includes(RECONCILIATION_HEADER))
    .map((m) => m?.text ?? '');
}

/** A researcher that answers at once. */
function researcherScript() {
  return script().rule({ system: 'You are the researcher.' }).text('The README says hello.');
}

/** Adds the main agent: it dispatches `tasks` at once, waits, and ends after the reconciliation. */
function withMain(builder: ReturnType<typeof script>, tasks: Record<string, unknown>[]) {
  return builder
    .rule({ last_user: 'Coordinator batch is complete' })
    .text('Reconciled.')
    .rule({ first_user: 'go' })
    .turn((t) => tasks.reduce((turn, args) => turn.tool('task', { background: true, ...args }), t))
    .text('Waiting for the batch.');
}

describe('coordinated batch with an isolated writer, end to end', () => {
  it(
    'delivers the researcher and the slower writer in one SPEC 8 reconciliation; the branch merges with cadre tasks merge',
    async () => {
      const server = await scriptedServer(
        withMain(
          researcherScript()
            .rule({ system: 'You are the writer.' })
            .turn((t) => t.delay(1000).tool('write', { path: 'feature.txt', content: 'feature\n' }))
            .turn((t) => t.tool('bash', { command: `git add feature.txt && ${COMMIT} "Add feature.txt"` }))
            .text('Committed feature.txt.'),
          [
            { agent: 'researcher', prompt: 'What does the README say?' },
            { agent: 'writer', prompt: 'Add feature.txt and commit it' },
          ],
        ),
      );
      const project = coordinated(server);
      const head = git(project.dir, 'rev-parse', 'HEAD');
      const run = await cadreIn(project, ['-p', 'go', '--yes', '--output-format', 'json'], {
        timeoutMs: TIMEOUT,
      });
      expect(run.code).toBe(0);
      const [researcher, writer] = JSON.parse(run.stdout).subagents;
      // The first main request carrying any child result carries both (the barrier).
      const first = server.requests.find((r) =>
        r.view.messages.some((m) => m.role === 'user' && m.text.includes(`[task ${researcher.id}`)),
      );
      const text = first?.view.messages.at(-1)?.text ?? '';
      expect(text).toContain(`[task ${writer.id} (readwrite)]`);
      const branch = /writer branch: (cadre-task-[0-9a-f-]{36})\n/.exec(text)?.[1] ?? '';
      const salvage = /writer salvage path: (.+)\n/.exec(text)?.[1] ?? '';
      const sha = git(project.dir, 'rev-parse', branch);
      expect(text).toContain(
        [
          `${RECONCILIATION_HEADER}`,
          '',
          `[task ${researcher.id} (readonly)] prompt: What does the README say?`,
          'completed: The README says hello.',
          '',
          `[task ${writer.id} (readwrite)] prompt: Add feature.txt and commit it`,
          'writer isolation: worktree',
          `writer branch: ${branch}`,
          'writer worktree: clean; retained for salvage',
          `writer commits: ${sha}`,
          `writer salvage path: ${salvage}`,
          'completed: Committed feature.txt.',
        ].join('\n'),
      );
      // A sibling of the repository, named after its branch.
      expect(salvage).toBe(join(dirname(project.dir), branch));
      expect(existsSync(join(salvage, 'feature.txt'))).toBe(true);
      // The parent checkout is untouched until the merge.
      expect(existsSync(project.path('feature.txt'))).toBe(false);
      expect(git(project.dir, 'rev-parse', 'HEAD')).toBe(head);
      expect(git(project.dir, 'status', '--porcelain')).toBe('');
      const merge = await cadreIn(project, ['tasks', 'merge', writer.id]);
      expect(merge.code).toBe(0);
      expect(readFileSync(project.path('feature.txt'), 'utf8')).toBe('feature\n');
      expect(existsSync(salvage)).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "a writer's escape attempts fail or are kept out and reported; nothing runs at merge; the reconciliation arrives",
    async () => {
      const tag = `${process.pid}-${Date.now()}`;
      const marker = join(tmpdir(), `cadre-hook-ran-${tag}`);
      const home = process.env.HOME ?? tmpdir();
      // Paths are found at run time, as a hostile model would: the parent checkout and the shared store.
      const parent = '"$(git worktree list --porcelain | sed -n 1s/^worktree.//p)"';
      const store = '"$(git rev-parse --git-common-dir)"';
      const hook = `#!/bin/sh\\ntouch ${marker}\\n`;
      const attempts = [
        'touch ../escape',
        `node -e "require('fs').writeFileSync('../escape-node', 'x')"`,
        `touch ${parent}/pwned.txt`,
        `node -e "require('fs').writeFileSync(process.argv[1] + '/pwned-node.txt', 'x')" ${parent}`,
        `touch ${home}/cadre-escape-${tag}`,
        `printf '${hook}' > ${store}/hooks/post-merge && chmod +x ${store}/hooks/post-merge`,
        'git -c user.name=w -c user.email=w@x commit -q --allow-empty -m evil && git update-ref refs/heads/main HEAD',
        `mkdir -p .husky && printf '${hook}' > .husky/post-merge && chmod +x .husky/post-merge && cp .husky/post-merge .husky/pre-merge-commit && git add .husky && ${COMMIT} "Add hooks"`,
        'git config core.hooksPath .husky',
      ];
      let writerScript = script().rule({ system: 'You are the writer.' });
      for (const command of attempts) writerScript = writerScript.turn((t) => t.tool('bash', { command }));
      const server = await scriptedServer(
        withMain(writerScript.text('Tried everything.'), [{ agent: 'writer', prompt: 'break out' }]),
      );
      const project = coordinated(server);
      const hooks = join(project.dir, '.git', 'hooks');
      const hooksBefore = readdirSync(hooks).sort();
      const main = git(project.dir, 'rev-parse', 'refs/heads/main');
      const run = await cadreIn(project, ['-p', 'go', '--yes', '--output-format', 'json'], {
        timeoutMs: TIMEOUT,
      });
      expect(run.code).toBe(0);
      const [text] = reconciliations(server);
      expect(text).toContain('completed: Tried everything.');
      expect(existsSync(join(dirname(project.dir), 'escape'))).toBe(false);
      expect(existsSync(join(dirname(project.dir), 'escape-node'))).toBe(false);
      expect(existsSync(project.path('pwned.txt'))).toBe(false);
      expect(existsSync(project.path('pwned-node.txt'))).toBe(false);
      expect(existsSync(join(home, `cadre-escape-${tag}`))).toBe(false);
      expect(readdirSync(hooks).sort()).toEqual(hooksBefore);
      expect(git(project.dir, 'rev-parse', 'refs/heads/main')).toBe(main);
      // Prevented, not repaired: the writer moved main only in its private view of the refs.
      expect(text).toMatch(
        /cadre kept a change out of the shared git store: refs\/heads\/main was moved to [0-9a-f]{40} in the writer's view of the shared git store; not applied/,
      );
      expect(gitOk(project.dir, 'config', '--get', 'core.hooksPath')).toBe(false);
      const writer = JSON.parse(run.stdout).subagents[0];
      const merge = await cadreIn(project, ['tasks', 'merge', writer.id]);
      expect(merge.code).toBe(0);
      expect(existsSync(project.path('.husky/post-merge'))).toBe(true);
      expect(existsSync(marker)).toBe(false);
    },
    TIMEOUT,
  );
});

describe('retention when cadre itself is stopped', () => {
  function slowWriter() {
    return withMain(
      script()
        .rule({ system: 'You are the writer.' })
        .turn((t) => t.tool('write', { path: 'wip.txt', content: 'half done\n' }))
        .turn((t) => t.delay(60_000).text('never')),
      [{ agent: 'writer', prompt: 'long work' }],
    );
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(
      `${signal} while a writer runs keeps its worktree with the uncommitted work, and cadre tasks lists it as retained`,
      async () => {
        const server = await scriptedServer(slowWriter());
        const project = coordinated(server);
        const live = startCadre(project, ['-p', 'go', '--yes', '--output-format', 'stream-json']);
        await live.waitForStdout(/"type":"tool_call_end"[^\n]*Created wip\.txt/);
        live.child.kill(signal);
        const exited = await live.exited;
        if (signal === 'SIGTERM') expect(exited.code).toBe(1);
        const isolation = jsonLines(live.stdout()).find((e) => e.type === 'subagent_isolation') as {
          worktree: string;
          branch: string;
        };
        expect(readFileSync(join(isolation.worktree, 'wip.txt'), 'utf8')).toBe('half done\n');
        const list = await cadreIn(project, ['tasks', 'list', '--json']);
        const [task] = JSON.parse(list.stdout);
        expect(task).toMatchObject({
          worktree: 'retained',
          branch: isolation.branch,
          salvage_path: isolation.worktree,
          changed_files: ['wip.txt'],
        });
        if (signal === 'SIGTERM') expect(task.status).toBe('cancelled');
      },
      TIMEOUT,
    );
  }
});

describe('retry_of end to end', () => {
  it(
    'a failed task is retried once and succeeds; a second retry and a retry of a cancelled task are refused',
    async () => {
      // Run 1: one researcher fails at once, another is still running when cadre is stopped (cancelled).
      const first = await scriptedServer(
        withMain(
          script()
            .rule({ system: 'You are the researcher.', first_user: 'fail' })
            .turn((t) => t.error(400, 'the model refused'))
            .rule({ system: 'You are the researcher.' })
            .turn((t) => t.delay(60_000).text('never')),
          [
            { agent: 'researcher', prompt: 'fail fast', description: 'failing' },
            { agent: 'researcher', prompt: 'slow', description: 'slow' },
          ],
        ),
      );
      const project = coordinated(first);
      const live = startCadre(project, ['-p', 'go', '--output-format', 'stream-json']);
      await live.waitForStdout(/"type":"subagent_end"[^\n]*"status":"failed"/);
      live.child.kill('SIGTERM');
      await live.exited;
      const starts = jsonLines(live.stdout()).filter((e) => e.type === 'subagent_start');
      const failed = starts.find((e) => e.description === 'failing')?.taskId as string;
      const cancelled = starts.find((e) => e.description === 'slow')?.taskId as string;

      // Run 2 continues the session: retry the failed one, then try both refused retries.
      const second = await scriptedServer(
        script()
          .rule({ system: 'You are the researcher.' })
          .text('found it')
          .rule({ last_user: 'Coordinator batch is complete' })
          .turn((t) =>
            t
              .tool('task', { agent: 'researcher', prompt: 'again', retry_of: failed })
              .tool('task', { agent: 'researcher', prompt: 'slow', retry_of: cancelled }),
          )
          .text('done')
          .rule({ last_user: 'retry' })
          .turn((t) =>
            t.tool('task', {
              agent: 'researcher',
              prompt: 'fail fast',
              retry_of: failed.slice(0, 8),
              background: true,
            }),
          )
          .text('waiting'),
      );
      const config = JSON.parse(readFileSync(project.path('.cadre/config.json'), 'utf8'));
      config.providers.fake.base_url = second.openaiBaseUrl;
      writeFileSync(project.path('.cadre/config.json'), JSON.stringify(config));
      const run = await cadreIn(project, ['-p', '--continue', 'retry', '--output-format', 'json'], {
        timeoutMs: TIMEOUT,
      });
      expect(run.code).toBe(0);
      const retry = JSON.parse(run.stdout).subagents.find(
        (t: { status: string }) => t.status === 'completed',
      );
      const texts = second.requests.map((r) => r.view.messages.at(-1)?.text ?? '');
      const reconciliation = texts.find((t) => t.includes(RECONCILIATION_HEADER)) ?? '';
      expect(reconciliation).toContain(
        `[task ${retry.id} (readonly)] prompt: fail fast\nretry of: ${failed}\ncompleted: found it`,
      );
      const results = second.requests.at(-1)?.view.messages.filter((m) => m.role === 'tool') ?? [];
      const refusals = results.slice(-2).map((m) => m.text);
      expect(refusals?.[0]).toContain(
        `retry_of ${failed} refused: task ${failed} was already retried by ${retry.id}`,
      );
      expect(refusals?.[1]).toContain(
        `retry_of ${cancelled} refused: task ${cancelled} was cancelled; cancelled work is not retryable by design`,
      );
    },
    TIMEOUT,
  );
});
