// Bundles the CLI with esbuild: one entry, split chunks so the TUI, MCP, SQLite and unused providers load lazily.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  mainFields: ['module', 'main'],
  target: 'node20',
  sourcemap: 'linked',
  loader: { '.txt': 'text' },
  // Native addon and a WASM package that locates its .wasm beside itself stay in node_modules.
  external: ['better-sqlite3', 'sh-syntax'],
  banner: {
    js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
