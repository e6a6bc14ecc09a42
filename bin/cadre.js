#!/usr/bin/env node
// CommonJS (bin/package.json), as are dist/cli.js and the script loader it requires: Node's ES module loader,
// whose start costs a few milliseconds of every cold start, is never started on the way (issue 17).
'use strict';
const { setFlagsFromString } = require('node:v8');

// WASM (the bash parser, undici's HTTP parser) stays on V8's baseline compiler: the optimizing tier
// compiles in background jobs that process exit waits for (seconds on a busy machine, issue 17), while
// parsing a command line takes microseconds either way. Set before any WASM is compiled.
setFlagsFromString('--liftoff-only');
// ...and compiles a module whole, in the background, when it is instantiated: compiled lazily, the bash
// grammar's first parse compiles its lexer on the main thread, a 40-100 ms stall of a running turn.
setFlagsFromString('--no-wasm-lazy-compilation');
// The young generation keeps its first size: a session allocates in small bursts, and a smaller heap makes
// every spawned command's fork cheaper (issue 17: a 100-turn session's peak RSS 124 -> 95 MiB, no more CPU).
setFlagsFromString('--semi-space-growth-factor=1');
require('../dist/cli.js');
