// The mode bundles as classic scripts, so V8 can keep their compiled code in a code cache across runs (Node 20
// caches no ES module code; issue 17). Each ES module file esbuild wrote for a mode is converted in place to
// `(function (exports, require, module, __cadreUrl, $cadrI) {...})` (src/util/script-modules.ts loads
// them), and a CommonJS stub takes the entry's place in `main.ts`'s import: with the loader, also CommonJS,
// nothing on the way starts Node's ES module loader.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { init, parse } from 'es-module-lexer';
import { build, transform } from 'esbuild';

/** Every output file a mode loads or may load, from its entry, by the metafile's import lists. */
function modeFiles(metafile, entry) {
  const [start] = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === entry);
  const files = new Set([start]);
  for (const file of files)
    for (const imported of metafile.outputs[file].imports)
      if (!imported.external && imported.path.endsWith('.js')) files.add(imported.path);
  return { start, files: [...files] };
}

/** Stands for `import(`, the same length, so every column and its source map place stays where it was. */
const IMPORT = '$cadrI';

async function toScript(file, output, banner) {
  let code = readFileSync(file, 'utf8');
  if (!code.startsWith(banner)) throw new Error(`${file} does not start with the bundle banner`);
  // The banner made `require` for ES module code; in a script `require` is the loader's. Its line stays.
  code = code.slice(banner.length);
  if (code.includes(IMPORT)) throw new Error(`${file} already uses ${IMPORT}`);
  // Every `import()` becomes the loader's: a file of the bundle is loaded as a script, anything else (a Node
  // builtin, a file named at run time) is imported by Node as before.
  const dynamic = new Set(
    output.imports.filter((i) => !i.external && i.kind === 'dynamic-import').map((i) => resolve(i.path)),
  );
  const [imports] = parse(code);
  let converted = '';
  let from = 0;
  for (const { d, ss, n } of imports) {
    if (d < 0) continue;
    if (code.slice(ss, ss + 7) !== 'import(') throw new Error(`${file}: unexpected dynamic import at ${ss}`);
    if (n?.startsWith('.')) dynamic.delete(resolve(dirname(file), n));
    converted += `${code.slice(from, ss)}${IMPORT}(`;
    from = ss + 7;
  }
  code = converted + code.slice(from);
  if (dynamic.size > 0) throw new Error(`${file}: a dynamic import of the bundle was not found`);
  // esbuild composes the bundle's source map, given inline, with the transform's.
  const map = readFileSync(`${file}.map`);
  code = code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  code += `\n//# sourceMappingURL=data:application/json;base64,${map.toString('base64')}\n`;
  const result = await transform(code, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__cadreUrl' },
    minifyWhitespace: true,
    charset: 'ascii',
    sourcemap: 'external',
    sourcefile: basename(file),
    logLevel: 'silent',
  });
  if (/\bimport\.meta\b/.test(result.code)) throw new Error(`${file}: import.meta left in the script`);
  // The wrapper's opening has a line of its own: the map only moves down one line.
  const scriptMap = JSON.parse(result.map);
  scriptMap.mappings = `;${scriptMap.mappings}`;
  return {
    code: `(function(exports,require,module,__cadreUrl,${IMPORT}){"use strict";\n${result.code}})\n//# sourceMappingURL=${basename(file)}.map\n`,
    map: JSON.stringify(scriptMap),
  };
}

/** Bundles src/util/script-modules.ts into `dir` as CommonJS; returns the file's name. */
export async function buildScriptLoader(dir) {
  const loader = await build({
    entryPoints: { 'script-loader': 'src/util/script-modules.ts' },
    outdir: dir,
    entryNames: '[name]-[hash]',
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    metafile: true,
    logLevel: 'warning',
  });
  return basename(Object.keys(loader.metafile.outputs).find((path) => path.endsWith('.cjs')));
}

/**
 * Converts the files of `bundles` (each `{ name, entry, metafile }`, all written to `dir`) to scripts in
 * place, each with its source map (to the sources, as before), and writes each bundle's CommonJS stub:
 * `stubName(name, digest)` in `dir`, requiring the loader at `loader` (relative to `dir`). The stub lists
 * the bundle's files, so only they load as scripts; its exports are the entry's. Returns each stub's file
 * name by bundle name. `others` are bundles in the same folder that stay ES modules.
 */
export async function bundlesAsScripts({ bundles, others = [], dir, banner, version, loader, stubName }) {
  await init;
  const graphs = bundles.map(({ metafile, entry }) => ({ metafile, ...modeFiles(metafile, entry) }));
  // A file two bundles share (same content, same hashed name) cannot be a script for one and a module for the other.
  const modules = new Set(others.flatMap(({ metafile, entry }) => modeFiles(metafile, entry).files));
  const shared = graphs.flatMap(({ files }) => files).find((file) => modules.has(file));
  if (shared) throw new Error(`${shared} is in a script bundle and an ES module bundle`);
  const scripts = new Map();
  for (const { metafile, files } of graphs)
    for (const file of files)
      if (!scripts.has(file)) scripts.set(file, await toScript(file, metafile.outputs[file], banner));
  for (const [file, script] of scripts) {
    writeFileSync(file, script.code);
    writeFileSync(`${file}.map`, script.map);
  }
  const stubs = new Map();
  bundles.forEach(({ name }, i) => {
    const { start, files } = graphs[i];
    const names = files.map((file) => relative(dir, file)).sort();
    const digest = createHash('sha256');
    for (const file of names) digest.update(`${file}\0${scripts.get(join(dir, file)).code}\0`);
    const bundle = digest.digest('hex').slice(0, 16);
    const args = [name, relative(dir, start), bundle, version, names].map((value) => JSON.stringify(value));
    const stub = [
      "'use strict';",
      `const { loadModeScripts } = require('./${loader}');`,
      `module.exports = loadModeScripts(__filename, ${args.join(', ')});`,
      '',
    ].join('\n');
    const file = stubName(name, bundle);
    writeFileSync(join(dir, file), stub);
    stubs.set(name, file);
  });
  return stubs;
}
