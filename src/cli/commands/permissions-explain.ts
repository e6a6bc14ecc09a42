import { composeGate, readOperatorFile } from '../../agent/gate-options.js';
import { ConfigError } from '../../config/load.js';
import type { SafetyFloor } from '../../permission/decide.js';
import { CallSpecError, callFromSpec, explainJson, formatExplain } from '../../permission/explain.js';
import { PermissionRuleError } from '../../permission/rules.js';
import { openWorkspace, requireProfile } from '../bootstrap.js';

export interface ExplainOptions {
  agent?: string;
  prompt?: string;
  safety: SafetyFloor;
  permissions?: string;
  yes?: boolean;
  /** Decide as a run with no user to answer asks (`-p` without `--yes`): asks become denies. */
  headless?: boolean;
  /** Session approvals ("always allow" rules) to decide with. */
  approve?: string[];
  trustProject?: boolean;
  json?: boolean;
  cwd?: string;
}

/**
 * `cadre permissions explain "<tool>(<input>)"` (SPEC 6.8). Exit 0 whatever the decision. The gate is the
 * one a run composes (composeGate): floor, hard denies, config, profile, prompt, operator, approvals,
 * global ceiling, --yes and headless.
 */
export async function runExplainCommand(spec: string, options: ExplainOptions): Promise<number> {
  try {
    const workspace = openWorkspace(options.cwd, process.env, { trustProject: options.trustProject });
    requireProfile(workspace, options.agent);
    const profile = options.agent ? workspace.profiles.profiles.get(options.agent) : undefined;
    const prompt = options.prompt ? workspace.prompts.prompts.get(options.prompt) : undefined;
    if (options.prompt && !prompt) {
      const known = [...workspace.prompts.prompts.keys()].join(', ') || 'none';
      throw new ConfigError(`unknown prompt "${options.prompt}" (known: ${known})`);
    }
    const gate = composeGate({
      loaded: workspace.loaded,
      profile,
      prompt,
      safety: options.safety,
      operator: options.permissions ? readOperatorFile(options.permissions) : undefined,
      yes: options.yes === true,
      headless: options.headless === true && options.yes !== true,
      projectTrusted: workspace.loaded.projectTrusted,
      approvals: options.approve ?? [],
    });
    for (const warning of gate.warnings) process.stderr.write(`cadre: warning: ${warning}\n`);
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
