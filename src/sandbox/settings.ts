import { homedir } from 'node:os';
import type { LoadedConfig } from '../config/load.js';
import type { SandboxSettings } from './policy.js';

/** The sandbox settings of a run: the merged config (its sandbox keys are the user's or a trusted project's). */
export function sandboxSettings(
  loaded: LoadedConfig,
  safety: 'read-only' | 'non-destructive' | 'full',
  env: NodeJS.ProcessEnv = process.env,
): SandboxSettings {
  const { config } = loaded;
  // Every file's providers count: scrubbing a key the run does not use costs nothing.
  const keyEnvNames = loaded.files.flatMap((file) =>
    Object.values(file.config.providers ?? {}).flatMap((p) => (p.api_key_env ? [p.api_key_env] : [])),
  );
  return {
    home: env.HOME ?? homedir(),
    configDir: loaded.globalDir,
    readOnly: safety === 'read-only',
    network: config.sandbox_network ?? true,
    pidNamespace: true,
    hide: config.sandbox_hide ?? [],
    envAllow: config.sandbox_env_allow ?? [],
    keyEnvNames: [...new Set(keyEnvNames)],
    runtimeDir: env.XDG_RUNTIME_DIR,
  };
}
