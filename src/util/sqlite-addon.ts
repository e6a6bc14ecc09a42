import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * The folder of the installed better-sqlite3 package, where its native addon was built. The bundles carry
 * better-sqlite3's JavaScript (scripts/build.mjs: code-cached, no CommonJS loading of a dozen files on a
 * cold start, issue 17), so the `bindings` search for the addon is told where the package is instead of
 * finding it from its caller's file, which is now the bundle's.
 */
export function sqlitePackageRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
}
