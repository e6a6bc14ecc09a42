import type { EnvPolicy } from './policy.js';

function globRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${body}$`, 'i');
}

const compiled = new Map<string, RegExp>();
function matchesAny(name: string, globs: readonly string[]): boolean {
  return globs.some((glob) => {
    let re = compiled.get(glob);
    if (!re) {
      re = globRegExp(glob);
      compiled.set(glob, re);
    }
    return re.test(name);
  });
}

/** True when the variable is removed from a sandboxed command's environment. */
export function isScrubbed(name: string, policy: EnvPolicy): boolean {
  if (matchesAny(name, policy.allow)) return false;
  return policy.names.includes(name) || matchesAny(name, policy.patterns);
}

/** The environment a command sees: `env` without the secrets the policy names. */
export function scrubEnv(env: NodeJS.ProcessEnv, policy: EnvPolicy): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isScrubbed(name, policy)) out[name] = value;
  }
  return out;
}
