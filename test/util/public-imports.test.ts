import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

const SPECIFIER = /(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g;

/** Every bare import in src/ with a subpath (`pkg/sub`, `@scope/pkg/sub`). */
function subpathImports(): { file: string; pkg: string; subpath: string }[] {
  const found: { file: string; pkg: string; subpath: string }[] = [];
  for (const file of sources(join(REPO_ROOT, 'src'))) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      const parts = spec.split('/');
      const nameLength = spec.startsWith('@') ? 2 : 1;
      if (parts.length <= nameLength) continue;
      found.push({
        file,
        pkg: parts.slice(0, nameLength).join('/'),
        subpath: `./${parts.slice(nameLength).join('/')}`,
      });
    }
  }
  return found;
}

describe('dependencies are used through their public API only', () => {
  it('imports no internal entry point and no subpath a package does not export', () => {
    const offending = subpathImports().filter(({ pkg, subpath }) => {
      if (/internal/.test(subpath)) return true;
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
      const keys = Object.keys(manifest.exports ?? {});
      // An exports key may hold one `*` standing for any subpath (`"./*": "./dist/*"`).
      return !keys.some((key) => {
        const [head, tail] = key.split('*');
        return tail === undefined ? key === subpath : subpath.startsWith(head) && subpath.endsWith(tail);
      });
    });
    expect(offending.map((o) => `${o.file}: ${o.pkg}/${o.subpath.slice(2)}`)).toEqual([]);
  });
});
