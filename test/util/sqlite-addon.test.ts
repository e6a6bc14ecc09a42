import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqlitePackageRoot } from '../../src/util/sqlite-addon.js';

describe('sqlitePackageRoot', () => {
  it("is the installed better-sqlite3 package's folder, where bindings finds its addon", () => {
    const root = sqlitePackageRoot();
    const manifest = join(root, 'package.json');
    expect(JSON.parse(readFileSync(manifest, 'utf8')).name).toBe('better-sqlite3');
    const bindings = createRequire(manifest)('bindings') as (options: object) => string;
    const addon = bindings({ bindings: 'better_sqlite3.node', module_root: root, path: true });
    expect(addon.startsWith(root)).toBe(true);
    expect(addon).toMatch(/better_sqlite3\.node$/);
  });
});
