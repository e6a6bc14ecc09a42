// Preloaded into a cadre process (NODE_OPTIONS=--import) by the start-up tests: at exit it writes the Node
// internals and the CommonJS files the process loaded to $CADRE_TEST_LOADED_FILE, and the ES module files
// (the bundle's chunks, and the mode files loaded as scripts, src/util/script-modules.ts) go to
// $CADRE_TEST_LOADED_FILE.esm as they load, so a test can check what a run
// pulled in (issue 17: nothing on the way that the run does not use). The time the process started its first
// HTTP request is written too: the server's arrival time can trail it by a loaded machine's scheduling delay.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.CADRE_TEST_LOADED_FILE;
const required = createRequire(import.meta.url).cache;
let firstRequestAt;
if (file) register('./loaded-esm-hooks.mjs', import.meta.url);
if (file)
  subscribe('cadre:script-module-load', ({ url }) => appendFileSync(`${file}.esm`, `${Date.now()} ${url}\n`));
if (file)
  subscribe('http.client.request.start', () => {
    firstRequestAt ??= Date.now();
  });
if (file)
  process.on('exit', () =>
    writeFileSync(
      file,
      JSON.stringify({
        internal: process.moduleLoadList,
        commonjs: Object.keys(required),
        firstRequestAt,
      }),
    ),
  );
