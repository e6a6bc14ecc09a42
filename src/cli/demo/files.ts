/** The small project the demo works in: one bug, one test that catches it. */
export const DEMO_FILES: Record<string, string> = {
  'README.md': '# demo\n\nA tiny library with a failing test. Run `node test.mjs`.\n',
  'math.mjs': 'export function add(a, b) {\n  return a - b;\n}\n',
  'test.mjs': [
    "import assert from 'node:assert/strict';",
    "import { add } from './math.mjs';",
    '',
    'assert.equal(add(2, 3), 5);',
    "console.log('ok: add(2, 3) === 5');",
    '',
  ].join('\n'),
};

export const DEMO_TASK = 'Fix the failing test in this repository (run it with `node test.mjs`).';
