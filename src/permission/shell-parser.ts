import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Node } from '@vscode/tree-sitter-wasm';

/** Parses bash source and hands the syntax tree to `walk`; the tree lives only during the call. */
export type WithShellTree = <T>(source: string, walk: (root: Node) => T) => T;

let loading: Promise<WithShellTree> | undefined;

/**
 * The tree-sitter runtime and bash grammar are WASM modules, loaded on the first bash analysis only
 * (cold start) and once per process. The `.wasm` files are found through the package, so this works
 * from source and from the bundle alike (the package itself must stay external to the bundle).
 */
export function loadShellParser(): Promise<WithShellTree> {
  loading ??= load();
  return loading;
}

async function load(): Promise<WithShellTree> {
  const require = createRequire(import.meta.url);
  const wasmDir = join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
  const { default: treeSitter } = await import('@vscode/tree-sitter-wasm');
  await treeSitter.Parser.init({ locateFile: (file) => join(wasmDir, file) });
  const bash = await treeSitter.Language.load(await readFile(join(wasmDir, 'tree-sitter-bash.wasm')));
  const parser = new treeSitter.Parser();
  parser.setLanguage(bash);
  return (source, walk) => {
    const tree = parser.parse(source);
    if (!tree) throw new Error('tree-sitter returned no tree');
    try {
      return walk(tree.rootNode);
    } finally {
      // Trees live in WASM memory, which the JS garbage collector does not reclaim.
      tree.delete();
    }
  };
}
