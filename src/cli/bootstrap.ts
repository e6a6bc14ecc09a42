import { ConfigError } from '../config/load.js';
import type { Workspace } from '../config/workspace.js';
import { profileNames } from '../profile/load.js';
import type { LoadWarning } from '../profile/types.js';

export { openWorkspace, resolveCwd, type Workspace } from '../config/workspace.js';

/** Fatal only where the user named something (SPEC 3.3): `--agent nope` lists the known names. */
export function requireProfile(workspace: Workspace, name: string | undefined): void {
  if (name === undefined || workspace.profiles.profiles.has(name)) return;
  throw new ConfigError(
    `unknown profile "${name}"; known profiles: ${profileNames(workspace.profiles).join(', ')}`,
  );
}

export function printWarnings(warnings: readonly LoadWarning[], stderr: { write(s: string): unknown }): void {
  for (const w of warnings) stderr.write(`cadre: warning: ${w.path}: ${w.reason}\n`);
}
