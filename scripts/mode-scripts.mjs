// The mode bundles as classic scripts, so V8 can keep their compiled code in a code cache across runs (Node 20
// caches no ES module code; issue 17). Each ES module file esbuild wrote for a mode is converted in place to
// `(function (exports, require, module, __cadreUrl, __cadreImport) {...})` (src/util/script-modules.ts loads
// them), and an ES module stub takes the entry's place in `main.ts`'s import.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

async function toScript(file, output, banner) {
  let code = readFileSync(file, 'utf8');
  if (!code.startsWith(banner)) throw new Error(`${file} does not start with the bundle banner`);
  // The banner made `require` for ES module code; in a script `require` is the loader's.
  code = code.slice(banner.length);
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
    converted += `${code.slice(from, ss)}__cadreImport(`;
    from = ss + 7;
  }
  code = converted + code.slice(from);
  if (dynamic.size > 0) throw new Error(`${file}: a dynamic import of the bundle was not found`);
  const result = await transform(code, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__cadreUrl' },
    minifyWhitespace: true,
    charset: 'ascii',
    logLevel: 'silent',
  });
  if (/\bimport\.meta\b/.test(result.code)) throw new Error(`${file}: import.meta left in the script`);
  return `(function(exports,require,module,__cadreUrl,__cadreImport){"use strict";${result.code}\n})`;
}

/**
 * Converts the modes' files in `dir` (their source maps, which no longer match, are removed) and writes the
 * loader and one stub per mode. Returns each mode's stub file name by mode name; `others` stay ES modules.
 */
export async function modesAsScripts({ modes, others, dir, banner, version }) {
  await init;
  const graphs = modes.map(({ metafile, entry }) => ({ metafile, ...modeFiles(metafile, entry) }));
  // A file both modes share (same content, same hashed name) cannot be a script for one and a module for the other.
  const modules = new Set(others.flatMap(({ metafile, entry }) => modeFiles(metafile, entry).files));
  const shared = graphs.flatMap(({ files }) => files).find((file) => modules.has(file));
  if (shared) throw new Error(`${shared} is in a script mode and an ES module mode`);
  const scripts = new Map();
  for (const { metafile, files } of graphs)
    for (const file of files)
      if (!scripts.has(file)) scripts.set(file, await toScript(file, metafile.outputs[file], banner));
  for (const [file, script] of scripts) {
    writeFileSync(file, script);
    rmSync(`${file}.map`, { force: true });
  }
  const loader = await build({
    entryPoints: { 'script-loader': 'src/util/script-modules.ts' },
    outdir: dir,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    metafile: true,
    logLevel: 'warning',
  });
  const loaderName = basename(Object.keys(loader.metafile.outputs).find((path) => path.endsWith('.js')));
  const stubs = new Map();
  modes.forEach(({ name }, i) => {
    const { metafile, start, files } = graphs[i];
    const digest = createHash('sha256');
    for (const file of [...files].sort()) digest.update(`${relative(dir, file)}\0${scripts.get(file)}\0`);
    const bundle = digest.digest('hex').slice(0, 16);
    const names = metafile.outputs[start].exports;
    const exported = names.filter((n) => n !== 'default');
    const stub = [
      `import { loadModeScripts } from './${loaderName}';`,
      `const mode = loadModeScripts(import.meta.url, ${JSON.stringify(name)}, ${JSON.stringify(relative(dir, start))}, '${bundle}', ${JSON.stringify(version)});`,
      ...(exported.length > 0 ? [`export const { ${exported.join(', ')} } = mode;`] : []),
      ...(names.includes('default') ? ['export default mode.default;'] : []),
      '',
    ].join('\n');
    const stubName = `${name}-${bundle.slice(0, 8)}.mjs`;
    writeFileSync(join(dir, stubName), stub);
    stubs.set(name, stubName);
  });
  return stubs;
}
