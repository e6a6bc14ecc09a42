import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreTerminal, KEYS } from '../support/terminal.js';
import { servedProject } from './harness.js';

/** A stdio "MCP server" that only leaves a mark that it was started. */
function markingServer(marker: string) {
  return {
    command: process.execPath,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
  };
}

/** A served project whose own config names an MCP server that marks the project when it starts. */
function projectWithServer(server: Awaited<ReturnType<typeof scriptedServer>>) {
  const project = servedProject(server, { git: true });
  const marker = join(project.dir, 'mcp-started');
  const config = JSON.parse(readFileSync(project.path('.cadre/config.json'), 'utf8'));
  config.mcp_servers = { probe: markingServer(marker) };
  writeFileSync(project.path('.cadre/config.json'), JSON.stringify(config));
  return { project, marker };
}

describe('the first-start trust question in a real terminal', { timeout: 90_000 }, () => {
  it('lists exactly what the project would start; "trust" saves the root and starts it', async () => {
    const server = await scriptedServer(script().text('Hello.'));
    const { project, marker } = projectWithServer(server);
    const tui = cadreTerminal(project);
    const question = await tui.waitFor(/Trust this folder\?/);
    expect(question).toContain(`${project.dir} is not trusted`);
    expect(question).toContain(`MCP server "probe" (${process.execPath} -e`);
    expect(question).toContain('1. Trust this folder');
    expect(existsSync(marker)).toBe(false);
    tui.type('1');
    await tui.waitFor(/ask anything/);
    const saved = JSON.parse(readFileSync(join(project.configDir, 'config.json'), 'utf8'));
    expect(saved.trusted_roots).toEqual([realpathSync(project.dir)]);
    // A turn waits for the MCP servers to connect: the marker is there by its answer.
    tui.type('hi\r');
    await tui.waitFor(/Hello\./);
    expect(existsSync(marker)).toBe(true);
    tui.type('/quit\r');
    expect(await tui.exited).toBe(0);

    // Trusted now: the next start asks nothing.
    const again = cadreTerminal(project);
    const screen = await again.waitFor(/ask anything/);
    expect(screen).not.toContain('Trust this folder?');
  });

  it('"continue" starts nothing of the project and remembers nothing', async () => {
    const server = await scriptedServer(script().text('Hello.'));
    const { project, marker } = projectWithServer(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/Trust this folder\?/);
    // Typed as fast as a person can: the Enter confirms the row the arrow moved to.
    tui.type(KEYS.down);
    tui.type(KEYS.enter);
    await tui.waitFor(/ask anything/);
    tui.type('hi\r');
    await tui.waitFor(/Hello\./);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(project.configDir, 'config.json'))).toBe(false);
    expect(tui.output()).toContain('MCP server "probe"');
  });

  it('asks nothing with --trust-project, or when the project would start nothing', async () => {
    const server = await scriptedServer(script().text('Hello.').text('Hello.'));
    const { project, marker } = projectWithServer(server);
    const flagged = cadreTerminal(project, ['--trust-project']);
    const screen = await flagged.waitFor(/ask anything/);
    expect(screen).not.toContain('Trust this folder?');
    flagged.type('hi\r');
    await flagged.waitFor(/Hello\./);
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(join(project.configDir, 'config.json'))).toBe(false);

    const plain = servedProject(server);
    const quiet = cadreTerminal(plain);
    expect(await quiet.waitFor(/ask anything/)).not.toContain('Trust this folder?');
  });
});
