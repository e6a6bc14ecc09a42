import { composeSessionGate, readOperatorFile } from '../../agent/gate-options.js';
import { ConfigError } from '../../config/load.js';
import type { SafetyFloor } from '../../permission/decide.js';
import { CallSpecError, callFromSpec, explainJson, formatExplain } from '../../permission/explain.js';
import { PermissionRuleError } from '../../permission/rules.js';
import { openWorkspace, requireProfile } from '../bootstrap.js';

export interface ExplainOptions {
  agent?: string;
  safety: SafetyFloor;
  permissions?: string;
  yes?: boolean;
  json?: boolean;
  cwd?: string;
}

/** `cadre permissions explain "<tool>(<input>)"` (SPEC 6.8). Exit 0 whatever the decision. */
export async function runExplainCommand(spec: string, options: ExplainOptions): Promise<number> {
  try {
    const workspace = openWorkspace(options.cwd);
    requireProfile(workspace, options.agent);
    const profile = options.agent ? workspace.profiles.profiles.get(options.agent) : undefined;
    const gate = composeSessionGate({
      root: workspace.loaded.projectRoot,
      loaded: workspace.loaded,
      safety: options.safety,
      profile,
      operator: options.permissions ? readOperatorFile(options.permissions) : undefined,
      yes: options.yes === true,
    });
    const decision = await gate.decide(callFromSpec(spec, options.agent ?? 'main'));
    process.stdout.write(
      options.json ? `${JSON.stringify(explainJson(decision), null, 2)}\n` : `${formatExplain(decision)}\n`,
    );
    return 0;
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof PermissionRuleError ||
      error instanceof CallSpecError
    ) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
