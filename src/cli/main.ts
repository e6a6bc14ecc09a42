import { headlessArgs, type ModeLoaders, runHeadless } from './headless-args.js';

/** Imported here only: the build makes each a bundle of its own, loaded from this file's place. */
const MODES: ModeLoaders = {
  headless: () => import('./headless.js'),
  tui: () => import('../tui/run.js'),
  acp: () => import('./commands/acp.js'),
};

/**
 * Errors that mean bad usage or bad configuration wherever they surface: exit 2 with their message. By
 * name: the modes are bundled apart from this file (scripts/build.mjs), each with its own error classes.
 */
const BAD_INPUT_ERRORS = new Set([
  'UsageError',
  'ConfigError',
  'PermissionRuleError',
  'ScriptError',
  'CallSpecError',
  'EditRefused',
]);

async function main(argv: string[]): Promise<void> {
  try {
    // `cadre -p <task>` with root options only runs without commander, whose start (about 10 ms of a cold
    // start, issue 17) is loaded for every other command line (src/cli/program.ts).
    const headless = headlessArgs(argv.slice(2));
    if (headless) await runHeadless(headless, MODES.headless);
    else await (await import('./program.js')).runProgram(argv, MODES);
  } catch (error) {
    if (error instanceof Error && BAD_INPUT_ERRORS.has(error.name)) {
      process.stderr.write(`cadre: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    // The session database cannot be used (locked, full disk, no permission): the run fails, one line.
    const code = (error as { code?: unknown }).code;
    if (
      error instanceof Error &&
      (error.name === 'SessionStoreError' || String(code).startsWith('SQLITE_'))
    ) {
      const { storeFailureLine } = await import('./store-failure.js');
      process.stderr.write(`cadre: ${storeFailureLine(error)}\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`cadre: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}

// Not awaited at the top level: the bundle is loaded as a script (scripts/build.mjs), which cannot; `main`
// handles its own errors.
void main(process.argv);
