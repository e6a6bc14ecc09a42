import { ConfigError } from '../../config/load.js';
import { agentsJson, formatAgentsText } from '../../profile/listing.js';
import { resolveRoles } from '../../profile/roles.js';
import { openWorkspace, printWarnings } from '../bootstrap.js';

/** `cadre agents [--json]` (SPEC 1): profiles, collisions, warnings, role routing. */
export async function runAgentsCommand(options: { json?: boolean; cwd?: string }): Promise<number> {
  try {
    const workspace = openWorkspace(options.cwd);
    // Like every start-up, one stderr line per problem file (SPEC 3.3); the listing repeats them.
    printWarnings(workspace.warnings, process.stderr);
    const roles = resolveRoles(workspace.loaded.config);
    // Warnings are part of the listing itself; prompt-file warnings are added to the profile ones.
    const registry = { ...workspace.profiles, warnings: workspace.warnings };
    const config = workspace.loaded.config;
    // The JSON document keeps exactly SPEC 1's keys; the listing also names the instructions files loaded.
    const instructions = workspace.instructions.map((f) => f.path);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(agentsJson(registry, roles, config), null, 2)}\n`);
    } else {
      process.stdout.write(formatAgentsText(registry, roles, config));
      const listed = instructions.length > 0 ? instructions.map((p) => `  ${p}`) : ['  (none)'];
      process.stdout.write(`\nProject instructions (main agent):\n${listed.join('\n')}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cadre: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
