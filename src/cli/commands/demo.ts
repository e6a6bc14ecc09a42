import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { closeScriptedServers } from '../../provider/scripted-route.js';
import { openWorkspace, printWarnings, startRuntime } from '../bootstrap.js';
import { DEMO_FILES, DEMO_TASK } from '../demo/files.js';
import demoScript from '../demo/script.json' with { type: 'json' };
import { TranscriptPrinter } from '../transcript.js';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=cadre demo', '-c', 'user.email=demo@cadre.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

/**
 * `cadre demo`: a real run of the agent on the scripted provider, in a throwaway git repository, with
 * nothing from the user's own configuration or network involved.
 */
export async function runDemoCommand(options: { keep?: boolean }): Promise<number> {
  const base = mkdtempSync(join(tmpdir(), 'cadre-demo-'));
  const repo = join(base, 'repo');
  const configDir = join(base, 'config');
  const out = process.stdout;
  try {
    for (const [path, text] of Object.entries(DEMO_FILES)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    mkdirSync(join(repo, '.cadre'));
    writeFileSync(join(repo, '.cadre', 'demo-script.json'), `${JSON.stringify(demoScript, null, 2)}\n`);
    writeFileSync(
      join(repo, '.cadre', 'config.json'),
      `${JSON.stringify({ provider: 'demo', providers: { demo: { type: 'scripted', script: 'demo-script.json' } } }, null, 2)}\n`,
    );
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'demo project');

    out.write(`cadre demo: a scripted model working in ${repo}\n`);
    out.write(
      'The model is the scripted provider (.cadre/demo-script.json): offline, same answers every run.\n\n',
    );
    out.write(`task: ${DEMO_TASK}\n\n`);

    const env = { ...process.env, CADRE_CONFIG_DIR: configDir };
    const workspace = openWorkspace(repo, env);
    printWarnings(workspace.warnings, process.stderr);
    const printer = new TranscriptPrinter(out);
    const { runtime, store } = await startRuntime(workspace, { safety: 'full', yes: true }, (event) =>
      printer.event(event),
    );
    try {
      const result = await runtime.prompt(DEMO_TASK);
      const { usage } = runtime.totals;
      out.write(
        `\n${result.stopReason === 'completed' ? '✓' : '✗'} ${result.stopReason} in ${result.turns} turns; ` +
          `${usage.inputTokens} input + ${usage.outputTokens} output tokens; session ${runtime.session.id}\n`,
      );
      return result.stopReason === 'completed' ? 0 : 1;
    } finally {
      await runtime.close();
      store.close();
    }
  } finally {
    await closeScriptedServers();
    process.chdir(tmpdir());
    if (options.keep) out.write(`kept: ${base}\n`);
    else rmSync(base, { recursive: true, force: true });
  }
}
