import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** cadre's global config directory: `$CADRE_CONFIG_DIR`, else `~/.config/cadre`. */
export function cadreConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CADRE_CONFIG_DIR ? resolve(env.CADRE_CONFIG_DIR) : join(homedir(), '.config', 'cadre');
}
