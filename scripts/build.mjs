// Bundles the CLI with esbuild: one entry, split chunks so the TUI, MCP, SQLite and unused providers load lazily.
// Chunk names carry content hashes, so the new build is added beside the old one and `cli.js` is swapped in
// last, atomically: a cadre process (or test) started from the previous build still finds its lazy chunks.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const STALE_CHUNK_MS = 15 * 60 * 1000;
const staging = `dist.build-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  mainFields: ['module', 'main'],
  target: 'node20',
  sourcemap: 'linked',
  loader: { '.txt': 'text' },
  // React and its reconciler ship a development build chosen at run time by NODE_ENV; a CLI runs production.
  define: { 'process.env.NODE_ENV': '"production"' },
  // The native SQLite addon stays in node_modules; the tree-sitter runtime is imported by file URL at run time.
  // ink loads React's devtools only when DEV=true: an optional peer never installed with cadre.
  external: ['better-sqlite3', 'react-devtools-core'],
  banner: {
    js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

mkdirSync('dist/chunks', { recursive: true });
const fresh = new Set(readdirSync(join(staging, 'chunks')));
for (const name of fresh) renameSync(join(staging, 'chunks', name), join('dist', 'chunks', name));
for (const name of ['cli.js.map', 'cli.js']) renameSync(join(staging, name), join('dist', name));
rmSync(staging, { recursive: true, force: true });
for (const name of readdirSync('dist/chunks')) {
  const path = join('dist', 'chunks', name);
  if (!fresh.has(name) && Date.now() - statSync(path).mtimeMs > STALE_CHUNK_MS) rmSync(path);
}
