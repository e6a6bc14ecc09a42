/** The small project the demo works in: one bug, one test that catches it, two subagent profiles. */
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
  '.cadre/agents/researcher.md': [
    '---',
    'description: Reads the code and reports what is wrong, with file anchors',
    'subagent_tools: readonly',
    '---',
    'You are the researcher. Read what you are asked about and report findings with file:line anchors.',
    '',
  ].join('\n'),
  '.cadre/agents/implementer.md': [
    '---',
    'description: Makes the change, runs the tests and commits',
    'subagent_tools: readwrite',
    '---',
    'You are the implementer. Make the requested change, run the tests, and commit.',
    '',
  ].join('\n'),
};

export const DEMO_CONFIG = {
  provider: 'demo',
  providers: { demo: { type: 'scripted', script: 'demo-script.json' } },
  subagent_dispatch_strategy: 'full',
  subagent_write_isolation: 'auto',
};

export const DEMO_TASK = 'Fix the failing test in this repository (run it with `node test.mjs`).';
