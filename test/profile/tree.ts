import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary directory tree for loader tests; `cleanup` removes it. */
export interface TempTree {
  root: string;
  path(relative: string): string;
  write(relative: string, text: string | Buffer): string;
  cleanup(): void;
}

export function tempTree(files: Record<string, string> = {}): TempTree {
  const root = mkdtempSync(join(tmpdir(), 'cadre-profile-'));
  const tree: TempTree = {
    root,
    path: (relative) => join(root, relative),
    write(relative, text) {
      const path = join(root, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  for (const [relative, text] of Object.entries(files)) tree.write(relative, text);
  return tree;
}
