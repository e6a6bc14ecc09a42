import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isAgentEvent } from '../../controller/types.js';
import { closeScriptedServers } from '../../provider/scripted-route.js';
import type { LiveTask } from '../../subagent/task-record.js';
import { openWorkspace, printWarnings } from '../bootstrap.js';
import { DEMO_CONFIG, DEMO_FILES, DEMO_TASK } from '../demo/files.js';
import demoScript from '../demo/script.json' with { type: 'json' };
import { TranscriptPrinter } from '../transcript.js';
import { runTasksCommand } from './tasks.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=cadre demo', '-c', 'user.email=demo@cadre.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

/** A temporary git repository holding the demo project and its config (scripted model, coordination on). */
function makeDemoRepo(repo: string): void {
  for (const [path, text] of Object.entries(DEMO_FILES)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  writeFileSync(join(repo, '.cadre', 'demo-script.json'), `${JSON.stringify(demoScript, null, 2)}\n`);
  writeFileSync(join(repo, '.cadre', 'config.json'), `${JSON.stringify(DEMO_CONFIG, null, 2)}\n`);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'demo project');
}

/**
 * `cadre demo` (SPEC 1): a real coordinated run on the scripted provider in a throwaway git repository: a
 * readonly researcher and an isolated writer in one batch, the reconciliation the model receives, then
 * the writer's branch merged with `cadre tasks merge`. Nothing of the user's configuration or network.
 */
export async function runDemoCommand(options: { keep?: boolean }): Promise<number> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-demo-')));
  const repo = join(base, 'repo');
  const configDir = join(base, 'config');
  const out = process.stdout;
  const env = { ...process.env, CADRE_CONFIG_DIR: configDir };
  try {
    makeDemoRepo(repo);
    out.write(`cadre demo — a scripted model coordinating two subagents in ${repo}\n`);
    out.write(
      'The model is the scripted provider (.cadre/demo-script.json): offline, same answers every run.\n',
    );
    out.write(
      'subagent_dispatch_strategy is "full": a readonly researcher and a readwrite implementer run as one\n',
    );
    out.write('batch, and the model hears back once, when both are done.\n\n');
    out.write(`task: ${DEMO_TASK}\n\n`);

    // cadre wrote this repository itself: it is trusted.
    const workspace = openWorkspace(repo, env, { trustProject: true });
    printWarnings(workspace.warnings, process.stderr);
    const printer = new TranscriptPrinter(out);
    const warnings: string[] = [];
    const [{ SessionController }, { openSessionStore }] = await Promise.all([
      import('../../controller/session-controller.js'),
      import('../../session/store.js'),
    ]);
    const store = openSessionStore(workspace.loaded.globalDir);
    let writer: LiveTask | undefined;
    try {
      const controller = await SessionController.open({
        workspace,
        flags: { safety: 'full', yes: true },
        store,
        interactive: false,
      });
      controller.subscribe(
        ({ event }) => {
          if (!isAgentEvent(event)) return;
          if (event.type === 'warning') warnings.push(event.message);
          printer.event(event);
        },
        { after: 0 },
      );
      const outcome = await controller.submit(DEMO_TASK).outcome;
      await controller.close();
      const { runtime } = controller;
      const { usage } = runtime.totals;
      out.write(
        `\n${outcome.stopReason === 'completed' ? '✓' : '✗'} ${outcome.stopReason} in ${outcome.turns} turns; ` +
          `${usage.inputTokens} input + ${usage.outputTokens} output tokens; session ${runtime.session.id}\n`,
      );
      if (outcome.stopReason !== 'completed') return 1;
      writer = runtime.subagents.list().find((t) => t.tier === 'readwrite');
    } finally {
      store.close();
    }
    return await showWriterOutcome(writer, repo, env, warnings);
  } finally {
    await closeScriptedServers();
    if (options.keep) out.write(`kept: ${base}\n`);
    else rmSync(base, { recursive: true, force: true });
  }
}

/** The writer's branch and commit, merged with `cadre tasks merge`; or why it ran serialized. */
async function showWriterOutcome(
  writer: LiveTask | undefined,
  repo: string,
  env: NodeJS.ProcessEnv,
  warnings: readonly string[],
): Promise<number> {
  const out = process.stdout;
  const report = writer?.writer;
  if (!writer || !report) {
    out.write('\nThe implementer did not run; see the messages above.\n');
    return 1;
  }
  if (report.isolation === 'serialize') {
    const why = warnings.find((w) => w.includes('serialized')) ?? 'no worktree could be made';
    out.write(`\nThe implementer ran serialized in the parent checkout (${why}).\n`);
    out.write(
      `Its commit is already on main, so there is nothing to merge:\n  ${git(repo, 'log', '--oneline', '-1')}\n`,
    );
    return 0;
  }
  if (report.removed || report.commits.length === 0) {
    out.write('\nThe implementer left no commit to merge.\n');
    return 1;
  }
  out.write(`\nThe implementer's work waits on branch ${report.branch}, in its worktree ${report.path}:\n`);
  out.write(`  ${git(repo, 'log', '--oneline', '-1', report.branch)}\n`);
  out.write(`main is untouched until you merge it:\n\n$ cadre tasks merge ${writer.id}\n`);
  const merged = await runTasksCommand('merge', writer.id, { cwd: repo, env });
  if (merged !== 0) return merged;
  out.write(
    `\n$ node test.mjs\n${execFileSync(process.execPath, ['test.mjs'], { cwd: repo, encoding: 'utf8' })}`,
  );
  return 0;
}
