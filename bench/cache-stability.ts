import type { ScriptTurn } from '../src/provider/scripted/script.js';
import { type RecordedRequest, startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, timedCadre } from './cli-run.js';

export interface CacheStabilityResult {
  wire: 'openai' | 'anthropic';
  turns: number;
  stable: boolean;
  /** What differed from the first request, when something did. */
  problem?: string;
}

/** A run that exercises several tools, including one that changes session state (the todo list). */
const TURNS: ScriptTurn[] = [
  { tool_calls: [{ name: 'read', arguments: { path: 'small.txt' } }] },
  { tool_calls: [{ name: 'list_dir', arguments: {} }] },
  { tool_calls: [{ name: 'grep', arguments: { pattern: 'small' } }] },
  {
    tool_calls: [
      {
        name: 'write_todo_list',
        arguments: { todos: [{ content: 'check caching', status: 'in_progress' }] },
      },
    ],
  },
  { tool_calls: [{ name: 'write', arguments: { path: 'out.txt', content: 'x\n' } }] },
  { text: 'done' },
];

/** The cacheable prefix of a request: the tool definitions and the system prompt, as sent. */
function prefixOf(request: RecordedRequest): { tools: string; system: string } {
  const body = request.body as { tools?: unknown };
  return { tools: JSON.stringify(body.tools ?? null), system: request.view.system };
}

/** SPEC 18: tool list and system prompt byte-identical on every turn of one profile. */
export async function benchCacheStability(wire: 'openai' | 'anthropic'): Promise<CacheStabilityResult> {
  const server = await startScriptedServer({ rules: [{ turns: TURNS }] });
  const project = benchProject(server, wire);
  try {
    await timedCadre(project, ['-p', 'use a few tools', '--yes']);
    const requests = server.requests;
    if (requests.length !== TURNS.length)
      return { wire, turns: requests.length, stable: false, problem: `expected ${TURNS.length} requests` };
    const first = prefixOf(requests[0]);
    for (const request of requests.slice(1)) {
      const prefix = prefixOf(request);
      for (const key of ['tools', 'system'] as const) {
        if (prefix[key] !== first[key])
          return {
            wire,
            turns: requests.length,
            stable: false,
            problem: `${key} changed at request ${request.seq}`,
          };
      }
    }
    return { wire, turns: requests.length, stable: true };
  } finally {
    project.cleanup();
    await server.close();
  }
}
