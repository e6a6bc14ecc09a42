import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreTerminal } from '../support/terminal.js';
import { servedProject } from './harness.js';

/** A CommonJS preload writing, at exit, the Node builtins the process loaded. */
const PRELOAD = `process.on('exit', () =>
  require('node:fs').writeFileSync(process.env.CADRE_TEST_BUILTINS_FILE, JSON.stringify(process.moduleLoadList)),
);
`;

describe('cadre interactive UI start (issue 12 budget, issue 17)', { timeout: 60_000 }, () => {
  it('lays out its first frame without loading undici (yoga reads its embedded WASM itself)', async () => {
    const server = await scriptedServer(script().text('hello from the model'));
    const project = servedProject(server);
    const preload = project.path('builtins-preload.cjs');
    const file = project.path('builtins.json');
    writeFileSync(preload, PRELOAD);
    const tui = cadreTerminal(project, [], {
      env: { NODE_OPTIONS: `--require ${preload}`, CADRE_TEST_BUILTINS_FILE: file },
    });
    await tui.waitFor(/ask anything/);
    tui.type('say hello\r');
    await tui.waitFor(/hello from the model/);
    tui.type('/quit\r');
    expect(await tui.exited).toBe(0);
    const loaded = JSON.parse(readFileSync(file, 'utf8')) as string[];
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((name) => name.includes('undici'))).toEqual([]);
  });
});
