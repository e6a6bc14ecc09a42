import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AnyTool, ShellJobs, ToolContext } from '../../src/tool/tool.js';

const noJobs: ShellJobs = {
  start: () => {
    throw new Error('MCP tests start no shell jobs');
  },
  get: () => undefined,
  list: () => [],
  killAll: () => undefined,
};

export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    root: process.cwd(),
    signal,
    agent: 'main',
    sessionId: 'test-session',
    jobs: noJobs,
    todos: { get: () => [], set: () => undefined },
  };
}

/** The server-everything entry script, found through its package.json `bin`. */
export function everythingServerEntry(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  const [entry] = Object.values(manifest.bin);
  return path.join(path.dirname(manifestPath), entry);
}

/** Live child processes of this process, read from /proc (zombies count as gone: they have exited). */
export function childPids(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, …
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') children.push(Number(entry));
  }
  return children;
}

export function toolNamed(tools: readonly AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}
