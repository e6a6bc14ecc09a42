import { ConfigError } from '../../config/load.js';
import { realRoot } from '../../config/trust.js';
import type { SafetyFloor } from '../../permission/decide.js';
import { openSandbox, type ShellSandbox } from '../../sandbox/sandbox.js';
import { sandboxSettings } from '../../sandbox/settings.js';
import { formatSandboxStatus, sandboxStatus, sandboxStatusJson } from '../../sandbox/status.js';
import { openWorkspace, printWarnings } from '../bootstrap.js';

export interface SandboxStatusOptions {
  safety: SafetyFloor;
  json?: boolean;
  cwd?: string;
  trustProject?: boolean;
}

/**
 * `cadre sandbox status [--json]`: which sandbox a run here would use and why, what is writable, hidden
 * and scrubbed. Exit 0; 1 when a run would refuse to start (`"sandbox": "bwrap"` that does not work).
 */
export async function runSandboxStatusCommand(options: SandboxStatusOptions): Promise<number> {
  let workspace: ReturnType<typeof openWorkspace>;
  try {
    workspace = openWorkspace(options.cwd, process.env, { trustProject: options.trustProject });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`cadre: ${error.message}\n`);
    return 2;
  }
  printWarnings(workspace.warnings, process.stderr);
  const { loaded } = workspace;
  const settings = sandboxSettings(loaded, options.safety, workspace.env);
  const root = realRoot(loaded.projectRoot);
  let sandbox: ShellSandbox;
  let refused = false;
  try {
    sandbox = openSandbox(settings, root, loaded.config.sandbox ?? 'auto').sandbox;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // What a run would meet: the same policy, and the reason it would not start.
    sandbox = {
      ...openSandbox(settings, root, 'none').sandbox,
      unconfinedReason: `a run refuses to start: ${error.message}`,
    };
    refused = true;
  }
  const status = sandboxStatus(sandbox, workspace.env);
  process.stdout.write(
    options.json ? `${JSON.stringify(sandboxStatusJson(status), null, 2)}\n` : formatSandboxStatus(status),
  );
  return refused ? 1 : 0;
}
