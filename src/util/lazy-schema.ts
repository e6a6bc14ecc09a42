import { config } from 'zod';
import { builtOnFirstUse } from './on-first-use.js';

/**
 * Builds without zod's compiled object parsers (its "JIT": a parser generated with `new Function` at an
 * object schema's first parse). A schema built on first use is parsed a few times (a message type, a
 * profile file, a tool's input), and compiling a parser costs more than it saves: the ACP SDK's first
 * `initialize`, `session/new` and `session/prompt` took 10.5 ms to validate, 7.6 ms without. The flag is
 * read when an object schema is made, so schemas built here keep it.
 */
function buildInterpreted<T>(build: () => T): T {
  const zod = config();
  const before = zod.jitless;
  zod.jitless = true;
  try {
    return build();
  } finally {
    zod.jitless = before;
  }
}

/**
 * A zod schema built the first time anything touches it (issue 17: zod schemas are large objects, and a
 * start builds many that the run never uses). The tools' input schemas are built with the first call (the
 * model gets their JSON schemas made at build time, src/tool/built-input-schemas.ts); the ACP SDK's ~470
 * message schemas, which the build wraps in this (scripts/build.mjs), with the first message of each type.
 * zod and its callers use it as the schema itself.
 */
export function lazySchema<T extends object>(build: () => T): T {
  return builtOnFirstUse(() => buildInterpreted(build));
}
