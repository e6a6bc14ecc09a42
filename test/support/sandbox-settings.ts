import { join } from 'node:path';
import type { SandboxSettings } from '../../src/sandbox/policy.js';

/** Sandbox settings for a test: the defaults, `home` standing in for the user's, one provider key name. */
export function testSandboxSettings(home: string): SandboxSettings {
  return {
    home,
    configDir: join(home, '.config', 'cadre'),
    readOnly: false,
    network: true,
    pidNamespace: true,
    hide: [],
    envAllow: [],
    keyEnvNames: ['MY_MODEL_KEY'],
  };
}
