// Bundles the CLI with esbuild: one entry, split chunks so the TUI, MCP, SQLite and unused providers load lazily.
// Chunk names carry content hashes, so the new build is added beside the old one and `cli.js` is swapped in
// last, atomically: a cadre process (or test) started from the previous build still finds its lazy chunks.
// The web page (src/web/page) is bundled for the browser into dist/web the same way: hashed files first,
// then `manifest.json` (the HTML and the file list) in one rename; `cadre web` reads that manifest at start.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildScriptLoader, bundlesAsScripts } from './mode-scripts.mjs';

const STALE_CHUNK_MS = 15 * 60 * 1000;

/**
 * zod re-exports every locale's messages as `locales` (360 KB, a sixth of what `cadre -p` loads); cadre
 * and its libraries only use the English ones zod configures itself with, so the namespace is bundled
 * with English alone (issue 17).
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: process.cwd(),
    }));
  },
};
/**
 * The AI SDK's HTTP helpers build every request's headers with the global `Headers`, which Node defines in
 * undici: touching it loads all of undici before the first model request, although cadre sends that
 * request through `node:http` (src/provider/http-fetch.ts). Those helpers get cadre's `HttpHeaders` in
 * its place (issue 17). The build fails if the helpers stop using `Headers`, so a changed SDK is noticed.
 */
const sdkHeadersWithoutUndici = {
  name: 'sdk-headers-without-undici',
  setup(build) {
    const headers = JSON.stringify(resolve('src/provider/http-headers.ts'));
    build.onLoad({ filter: /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!/\bnew Headers\(/.test(text))
        throw new Error(`${args.path} no longer builds headers with Headers`);
      return {
        contents: `import { HttpHeaders as Headers } from ${headers};\n${text}`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};
/**
 * yoga-layout (ink's layout engine) embeds its WASM as a `data:` URL, which its emscripten loader reads with
 * the global `fetch` when there is one: that loads all of undici and parses the URL with it, about 34 ms of
 * the TUI's first frame (issue 12's budget, issue 17). With `fetch` shadowed in that one module, the loader
 * takes its own synchronous path and decodes the base64 itself. The build fails if the module no longer
 * embeds its WASM or no longer asks for `fetch`, so a changed yoga is noticed.
 */
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(build) {
    build.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/][^\\/]+\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('data:application/octet-stream;base64,') || !/typeof fetch\b/.test(text))
        throw new Error(`${args.path} no longer loads an embedded WASM with fetch`);
      return { contents: `const fetch = undefined;\n${text}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
/**
 * The AI SDK converts zod 3 schemas to JSON schema with code that takes only the `ZodFirstPartyTypeKind`
 * names from `zod/v3`, yet importing it loads all of zod 3 (70 KB on every cold start, issue 17). cadre's
 * schemas are zod 4, so that code never runs; the names are still the real ones, read from zod at build
 * time. Any other name the SDK starts to import fails the build, so a changed SDK is noticed.
 */
const zod3KindsOnly = {
  name: 'zod3-kinds-only',
  setup(build) {
    build.onResolve({ filter: /^zod\/v3$/ }, (args) =>
      /[\\/]@ai-sdk[\\/]provider-utils[\\/]/.test(args.importer)
        ? { path: 'zod-v3-kinds', namespace: 'zod3-kinds-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod3-kinds-only' }, async () => {
      const { ZodFirstPartyTypeKind } = await import('zod/v3');
      return { contents: `export const ZodFirstPartyTypeKind = ${JSON.stringify(ZodFirstPartyTypeKind)};` };
    });
  },
};
/**
 * The ACP SDK's generated zod schemas (one per protocol type, ~470) are all built when it loads, the larger
 * part of `cadre acp`'s start before `initialize` (issue 17); a server validates only the requests it
 * receives. Each top-level schema is wrapped in `lazySchema` (src/util/lazy-schema.ts): built on first use.
 * A file whose schemas no longer all match the expected shape fails the build, so a changed SDK is noticed.
 */
const acpSchemasOnUse = {
  name: 'acp-schemas-on-use',
  setup(build) {
    const helper = JSON.stringify(resolve('src/util/lazy-schema.ts'));
    build.onLoad(
      { filter: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/].*[\\/](zod|guards)\.gen\.js$/ },
      async (args) => {
        const text = await readFile(args.path, 'utf8');
        const declarations = text.match(/^(export )?const z\w+ = /gm)?.length ?? 0;
        let wrapped = 0;
        const contents = text.replace(
          /^((?:export )?const z\w+ = )([\s\S]*?);\n(?=\/\*\*|\/\/|(?:export )?(?:const|function) |\n|$)/gm,
          (_, head, body) => {
            wrapped++;
            return `${head}/* @__PURE__ */ __cadreLazySchema(() => ${body});\n`;
          },
        );
        if (wrapped !== declarations)
          throw new Error(`${args.path}: ${declarations - wrapped} schema declarations not wrapped`);
        return {
          contents: `import { lazySchema as __cadreLazySchema } from ${helper};\n${contents}`,
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      },
    );
  },
};
/**
 * better-sqlite3's JavaScript is bundled (with `bindings`, which finds its addon): loaded as a script with a
 * code cache, where from node_modules it was a dozen CommonJS files compiled on every start (issue 17). The
 * addon stays in the installed package; `bindings` is told that package's folder (src/util/sqlite-addon.ts),
 * since the caller it would find it from is now the bundle. A changed loading line fails the build.
 */
const sqliteAddonFromPackage = {
  name: 'sqlite-addon-from-package',
  setup(build) {
    const helper = JSON.stringify(resolve('src/util/sqlite-addon.ts'));
    build.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const call = "require('bindings')('better_sqlite3.node')";
      if (!text.includes(call)) throw new Error(`${args.path} no longer loads its addon with ${call}`);
      const located =
        "require('bindings')({ bindings: 'better_sqlite3.node', module_root: __cadreSqliteRoot() })";
      return {
        contents: `const { sqlitePackageRoot: __cadreSqliteRoot } = require(${helper});\n${text.replace(call, located)}`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};
const staging = `dist.build-${process.pid}`;
rmSync(staging, { recursive: true, force: true });

/**
 * The built-in tools' input JSON schemas, made by bundling and running scripts/tool-input-schemas.ts, take
 * the place of the empty table in src/tool/built-input-schemas.ts: a start sends them to the model without
 * building the tools' zod schemas, which are built with a tool's first call (issue 17).
 */
async function toolInputSchemas() {
  const outfile = join(staging, 'tool-input-schemas.mjs');
  await build({
    entryPoints: ['scripts/tool-input-schemas.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    loader: { '.txt': 'text' },
    packages: 'external',
    logLevel: 'warning',
  });
  const { toolInputSchemas } = await import(pathToFileURL(resolve(outfile)).href);
  return toolInputSchemas();
}
const builtInputSchemas = await toolInputSchemas();
const toolSchemasBuilt = {
  name: 'tool-schemas-built',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]tool[\\/]built-input-schemas\.ts$/ }, () => ({
      contents: `export const BUILT_INPUT_SCHEMAS = ${JSON.stringify(builtInputSchemas)};`,
      loader: 'js',
    }));
  },
};

/** What every server-side bundle shares: the CLI's and each mode's. */
const nodeBundle = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  mainFields: ['module', 'main'],
  target: 'node20',
  sourcemap: 'linked',
  // Less for V8 to scan on every cold start (about 6% of `cadre -p`, issue 17); names stay, so stack traces
  // still read, and the source map places them. ASCII output keeps every module a one-byte string.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  loader: { '.txt': 'text' },
  // React and its reconciler ship a development build chosen at run time by NODE_ENV; a CLI runs production.
  define: { 'process.env.NODE_ENV': '"production"' },
  // The native SQLite addon stays in node_modules (its JavaScript is bundled, sqliteAddonFromPackage); the
  // tree-sitter runtime is imported by file URL at run time. ink loads React's devtools only when DEV=true:
  // an optional peer never installed with cadre.
  external: ['react-devtools-core'],
  banner: {
    js: "import { createRequire as __cadreCreateRequire } from 'node:module'; const require = __cadreCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [
    zodEnglishOnly,
    zod3KindsOnly,
    sdkHeadersWithoutUndici,
    acpSchemasOnUse,
    toolSchemasBuilt,
    sqliteAddonFromPackage,
    yogaWithoutFetch,
  ],
  logLevel: 'warning',
};

/**
 * The modes `src/cli/main.ts` loads with `import()` that start an agent, each bundled on its own into
 * `dist/modes`: in the one bundle their code was cut into as many chunks as there are sets of commands
 * sharing it, and Node pays about half a millisecond per module file (`cadre -p hi` loaded 65 files, now
 * about 25; issue 17). Only one mode runs in a process, so nothing is loaded twice; what a mode shares
 * with `cli.js` itself (the usage error) is compared by name there.
 */
const MODES = { headless: 'src/cli/headless.ts', acp: 'src/cli/commands/acp.ts', tui: 'src/tui/run.tsx' };
/**
 * The modes loaded as classic scripts with a V8 code cache (scripts/mode-scripts.mjs). The TUI stays ES
 * modules, in a folder of its own (a chunk it shares by name with another mode cannot be both): ink's
 * reconciler awaits at its top level, which a script cannot.
 */
const SCRIPT_MODES = ['headless', 'acp'];
const modeFolder = (name) => (SCRIPT_MODES.includes(name) ? 'modes' : join('modes', name));
const modes = await Promise.all(
  Object.entries(MODES).map(([name, entry]) =>
    build({
      ...nodeBundle,
      entryPoints: { [name]: entry },
      outdir: join(staging, modeFolder(name)),
      entryNames: '[name]-[hash]',
      metafile: true,
    }),
  ),
);
const modeOutputs = Object.entries(MODES).map(([name, entry], i) => ({
  name,
  entry,
  metafile: modes[i].metafile,
}));
const scriptLoader = await buildScriptLoader(join(staging, 'modes'));
const asScripts = {
  banner: nodeBundle.banner.js,
  version: JSON.parse(readFileSync('package.json', 'utf8')).version,
};
const modeStubs = await bundlesAsScripts({
  ...asScripts,
  bundles: modeOutputs.filter(({ name }) => SCRIPT_MODES.includes(name)),
  others: modeOutputs.filter(({ name }) => !SCRIPT_MODES.includes(name)),
  dir: join(staging, 'modes'),
  loader: scriptLoader,
  stubName: (name, bundle) => `${name}-${bundle.slice(0, 8)}.cjs`,
});
/** Each mode's import in main.ts, as the path of its entry (hashed, so an older cli.js keeps its own). */
const modePaths = new Map(
  modeOutputs.map(({ name, entry, metafile }) => {
    const [output] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === entry);
    return [resolve(entry), `./${modeFolder(name)}/${modeStubs.get(name) ?? basename(output)}`];
  }),
);
const modesExternal = {
  name: 'modes-external',
  setup(build) {
    build.onResolve({ filter: /\.js$/ }, (args) => {
      if (!args.importer.endsWith(join('src', 'cli', 'main.ts'))) return undefined;
      const source = resolve(args.resolveDir, args.path.replace(/\.js$/, ''));
      const path = modePaths.get(`${source}.ts`) ?? modePaths.get(`${source}.tsx`);
      return path ? { path, external: true } : undefined;
    });
  },
};

/**
 * The CLI itself is a script bundle too (`cli-<hash>.js` and `dist/chunks`), with its own code cache;
 * `cli.js` is its stub, CommonJS like `bin/cadre.js`, which requires it.
 */
const cli = build({
  ...nodeBundle,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: staging,
  entryNames: '[name]-[hash]',
  metafile: true,
  plugins: [modesExternal, ...nodeBundle.plugins],
}).then(({ metafile }) =>
  bundlesAsScripts({
    ...asScripts,
    bundles: [{ name: 'cli', entry: 'src/cli/main.ts', metafile }],
    dir: staging,
    loader: `modes/${scriptLoader}`,
    stubName: () => 'cli.js',
  }),
);

// No CDN: everything the page uses is in these files, so it works offline.
const page = build({
  entryPoints: { page: 'src/web/page/main.tsx' },
  outdir: join(staging, 'web'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

const [, pageResult] = await Promise.all([cli, page]);

function swapIn(from, to, fresh) {
  mkdirSync(to, { recursive: true });
  for (const name of fresh) renameSync(join(from, name), join(to, name));
  for (const name of readdirSync(to)) {
    const path = join(to, name);
    if (
      !fresh.has(name) &&
      name !== 'manifest.json' &&
      statSync(path).isFile() &&
      Date.now() - statSync(path).mtimeMs > STALE_CHUNK_MS
    )
      rmSync(path);
  }
}

const pageFiles = Object.keys(pageResult.metafile.outputs).map((path) => basename(path));
const script = pageFiles.find((name) => name.endsWith('.js'));
const style = pageFiles.find((name) => name.endsWith('.css'));
const html = readFileSync('src/web/page/index.html', 'utf8')
  .replace('%SCRIPT%', `/assets/${script}`)
  .replace('%STYLE%', `/assets/${style}`);
writeFileSync(join(staging, 'web', 'manifest.json'), `${JSON.stringify({ html, files: pageFiles })}\n`);
swapIn(join(staging, 'web'), join('dist', 'web'), new Set(pageFiles));
renameSync(join(staging, 'web', 'manifest.json'), join('dist', 'web', 'manifest.json'));

// Node looks for the package.json that says a file is an ES module from the file's folder upward, once per
// module loaded: one beside each bundle folder ends each look-up at the first step. `dist` itself holds
// only the CLI's scripts and its stub, which is CommonJS.
// Chunks before the entries that import them, `cli.js` last.
const moduleFolders = [
  'chunks',
  join('modes', 'chunks'),
  'modes',
  join('modes', 'tui', 'chunks'),
  join('modes', 'tui'),
];
for (const [dir, type] of [['', 'commonjs'], ...moduleFolders.map((folder) => [folder, 'module'])])
  writeFileSync(join(staging, dir, 'package.json'), `${JSON.stringify({ type })}\n`);
for (const dir of moduleFolders) {
  const files = readdirSync(join(staging, dir), { withFileTypes: true }).filter((entry) => entry.isFile());
  swapIn(join(staging, dir), join('dist', dir), new Set(files.map((entry) => entry.name)));
}
// The CLI's script beside the older ones (a running cadre may still load its own), its stub last.
const cliScript = /^cli-\w+\.js(\.map)?$/;
const cliScripts = readdirSync(staging).filter((name) => cliScript.test(name));
for (const name of readdirSync('dist'))
  if (cliScript.test(name) && Date.now() - statSync(join('dist', name)).mtimeMs > STALE_CHUNK_MS)
    rmSync(join('dist', name));
rmSync(join('dist', 'cli.js.map'), { force: true });
for (const name of ['package.json', ...cliScripts, 'cli.js'])
  renameSync(join(staging, name), join('dist', name));
rmSync(staging, { recursive: true, force: true });
