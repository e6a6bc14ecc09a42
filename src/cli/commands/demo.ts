import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isAgentEvent } from '../../controller/types.js';
import { closeScriptedServers } from '../../provider/scripted-route.js';
import { openWorkspace, printWarnings } from '../bootstrap.js';
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
    const [{ SessionController }, { openSessionStore }] = await Promise.all([
      import('../../controller/session-controller.js'),
      import('../../session/store.js'),
    ]);
    const store = openSessionStore(workspace.loaded.globalDir);
    try {
      const controller = await SessionController.open({
        workspace,
        flags: { safety: 'full', yes: true },
        store,
        interactive: false,
      });
      controller.subscribe(
        ({ event }) => {
          if (isAgentEvent(event)) printer.event(event);
        },
        { after: 0 },
      );
      const outcome = await controller.submit(DEMO_TASK).outcome;
      await controller.close();
      const { usage } = controller.runtime.totals;
      out.write(
        `\n${outcome.stopReason === 'completed' ? '✓' : '✗'} ${outcome.stopReason} in ${outcome.turns} turns; ` +
          `${usage.inputTokens} input + ${usage.outputTokens} output tokens; session ${controller.sessionId}\n`,
      );
      return outcome.stopReason === 'completed' ? 0 : 1;
    } finally {
      store.close();
    }
  } finally {
    await closeScriptedServers();
    if (options.keep) out.write(`kept: ${base}\n`);
    else rmSync(base, { recursive: true, force: true });
  }
}
