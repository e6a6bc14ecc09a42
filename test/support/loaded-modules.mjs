// Preloaded into a cadre process (NODE_OPTIONS=--import) by the start-up tests: at exit it writes the Node
// internals and the CommonJS files the process loaded to $CADRE_TEST_LOADED_FILE, and the ES module files
// (the bundle's chunks) go to $CADRE_TEST_LOADED_FILE.esm as they load, so a test can check what a run
// pulled in (issue 17: nothing on the way that the run does not use).
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.CADRE_TEST_LOADED_FILE;
const required = createRequire(import.meta.url).cache;
if (file) register('./loaded-esm-hooks.mjs', import.meta.url);
if (file)
  process.on('exit', () =>
    writeFileSync(
      file,
      JSON.stringify({ internal: process.moduleLoadList, commonjs: Object.keys(required) }),
    ),
  );
