import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** cadre's global config directory: `$CADRE_CONFIG_DIR`, else `~/.config/cadre`. */
export function cadreConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CADRE_CONFIG_DIR ? resolve(env.CADRE_CONFIG_DIR) : join(homedir(), '.config', 'cadre');
}

/**
 * cadre's folder in the user cache directory: `$XDG_CACHE_HOME/cadre`, else `~/.cache/cadre` (an empty
 * variable counts as unset, as the XDG base directory spec says).
 */
export function cadreCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'cadre');
}
