import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fragileServerSource, holdFilePath } from '../mcp/helpers.js';
import { openTestSession } from './harness.js';

const mcpOf = (tools: string[]) => tools.filter((name) => name.startsWith('mcp__'));

describe('a running subagent and the session’s MCP servers', () => {
  it('loses a dead server’s tools at its next turn and gets the reconnected server’s back, which work', async () => {
    const hold = holdFilePath();
    const seen: string[][] = [];
    const s = await openTestSession(
      async (call) => {
        if (!call.system.startsWith('You are the watcher.')) {
          return call.last === 'go'
            ? { tools: [['task', { agent: 'watcher', prompt: 'watch' }]] }
            : { text: 'finished' };
        }
        seen.push(mcpOf(call.tools));
        switch (seen.length) {
          case 1:
            // Restarts fail while the hold file exists.
            writeFileSync(hold, '');
            return { tools: [['mcp__fragile__crash', {}]] };
          case 2:
            await s.next('warning', (e) => /"fragile" disconnected/.test(e.message));
            return { tools: [['read', { path: 'a.txt' }]] };
          case 3:
            rmSync(hold);
            await s.next('warning', (e) => /"fragile" reconnected/.test(e.message));
            return { tools: [['read', { path: 'a.txt' }]] };
          case 4:
            return { tools: [['mcp__fragile__ping', {}]] };
          default:
            return { text: `watched: ${call.last}` };
        }
      },
      {
        files: {
          'a.txt': 'a\n',
          '.cadre/agents/watcher.md':
            '---\nsubagent_tools: readonly\nsubagent_mcp: all\n---\nYou are the watcher.\n',
        },
        config: {
          mcp_servers: { fragile: { command: process.execPath, args: ['-e', fragileServerSource(hold)] } },
          permission: { allow: ['mcp__fragile__*'] },
        },
        trustProject: true,
      },
    );
    await s.controller.runtime.mcpSettled();
    expect((await s.controller.submit('go').outcome).text).toBe('finished');
    const both = ['mcp__fragile__crash', 'mcp__fragile__ping'];
    expect(seen.slice(0, 1)).toEqual([both]);
    // Turn 3 was asked after the death was known: the tools were gone; turn 4 after the reconnect.
    expect(seen[2]).toEqual([]);
    expect(seen[3]).toEqual(both);
    // The tool the child got back calls the new server process.
    const task = s.events.flatMap((e) => (e.event.type === 'subagent_end' ? [e.event] : []));
    expect(JSON.stringify(task)).toContain('watched: pong');
  });
});
