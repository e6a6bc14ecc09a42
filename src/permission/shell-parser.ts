import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Node } from '@vscode/tree-sitter-wasm';

/** Parses bash source and hands the syntax tree to `walk`; the tree lives only during the call. */
export type WithShellTree = <T>(source: string, walk: (root: Node) => T) => T;

let loading: Promise<WithShellTree> | undefined;

type TreeSitter = typeof import('@vscode/tree-sitter-wasm');

/**
 * The tree-sitter runtime and bash grammar are WASM modules, loaded on the first bash analysis only
 * (cold start) and once per process.
 */
export function loadShellParser(): Promise<WithShellTree> {
  loading ??= load();
  return loading;
}

async function load(): Promise<WithShellTree> {
  const require = createRequire(import.meta.url);
  const wasmDir = join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
  // Required by path so esbuild leaves it out of the bundle: the runtime is a UMD script that finds itself
  // through `__filename`, which a bundled ESM chunk does not have. `require`, not `import()`: the ESM
  // loader would first scan its 170 kB for named exports, 45 ms of CPU on the first bash call (issue 17).
  const treeSitter = require(join(wasmDir, 'tree-sitter.js')) as TreeSitter;
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
