import { ConfigError } from '../../config/load.js';
import { describeUntrusted, realRoot, startsByItself } from '../../config/trust.js';
import { addTrustedRoot, globalConfigFile } from '../../config/trust-store.js';
import { openWorkspace, type Workspace } from '../../config/workspace.js';
import type { Theme } from '../theme.js';
import { askTrust } from './trust-screen.js';

/**
 * The first-start question (issue 15 point 6d): asked only when the project is untrusted and its own
 * config would start something by itself. "Trust" saves the root in the global config and reopens the
 * workspace trusted; "continue" keeps it untrusted (the start-up warning names what was skipped).
 */
export async function askTrustAtStart(workspace: Workspace, theme: Theme): Promise<Workspace | 'quit'> {
  const { loaded } = workspace;
  if (loaded.projectTrusted || !loaded.untrusted.some(startsByItself)) return workspace;
  const configFile = globalConfigFile(loaded.globalDir);
  const choice = await askTrust(
    {
      projectRoot: loaded.projectRoot,
      wouldRun: describeUntrusted(loaded.untrusted, 'trusted'),
      configFile,
    },
    theme,
  );
  if (choice !== 'trust') return choice === 'quit' ? 'quit' : workspace;
  try {
    addTrustedRoot(configFile, realRoot(loaded.projectRoot));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Trust for this run still holds: the user said so; only remembering it failed.
    process.stderr.write(`cadre: warning: ${error.message}\n`);
  }
  return openWorkspace(workspace.cwd, workspace.env, { trustProject: true });
}
