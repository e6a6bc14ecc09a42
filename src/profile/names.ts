import { BUILTIN_TOOL_NAMES } from '../tool/names.js';

export const PROFILE_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/;

/** Names a profile may not take: they already mean something on the command line or in rules (SPEC 3.3). */
export const RESERVED_PROFILE_NAMES: ReadonlySet<string> = new Set([
  'off',
  'none',
  'default',
  'read',
  'write',
  'destructive',
  ...BUILTIN_TOOL_NAMES,
]);

/** Why `name` cannot name a profile, or undefined when it can. */
export function profileNameProblem(name: string): string | undefined {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    return `invalid name "${name}": must match ${PROFILE_NAME_PATTERN.source}`;
  }
  if (RESERVED_PROFILE_NAMES.has(name.toLowerCase())) return `reserved name "${name}"`;
  return undefined;
}
