import { describe, expect, it } from 'vitest';
import { jsonLines, servedProject, toolResults } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, runRoot, sharedRepository, startWorker } from './harness.js';
import { probeServer } from './mcp-probe.js';

const TIMEOUT = 120_000;
const READER =
  '---\ndescription: reads\nsubagent_tools: readonly\nsubagent_mcp: all\n---\nYou are a remote reader.\n';

const redisFile = redisForFile();

describe('MCP tools of a remote child', () => {
  it(
    'come from the worker’s own servers, granted by the profile and decided by the composed rules; never the root’s servers',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a remote reader.' })
          .turn((t) => t.tool('mcp__probe__where', {}))
          .turn((t) => t.tool('mcp__probe__secret', {}))
          .text('read done')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'reader', prompt: 'ask the probe' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const worker = await startWorker('w-mcp', redisFile.server.url, server, repository, {
        config: { mcp_servers: { probe: probeServer('worker w-mcp') } },
      });
      expect(worker.log()).toMatch(/MCP servers: probe \(connected, 3 tools\)/);
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/reader.md': READER },
        config: {
          // The root has a server of its own: a remote child never gets its tools.
          mcp_servers: { rootprobe: probeServer('the root') },
          permission: { deny: ['mcp__probe__secret'] },
          ...queueConfig(redisFile.server.url, repository),
        },
      });
      const run = await runRoot(project, TIMEOUT);
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events).toContainEqual(expect.objectContaining({ type: 'subagent_worker', worker: 'w-mcp' }));
      expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'completed',
        result: 'read done',
      });
      const childCalls = server.requests.filter((r) => r.view.system.includes('You are a remote reader.'));
      // The worker's probe, all of it (as `subagent_mcp: all` grants locally); the root's rootprobe never.
      expect(childCalls[0].view.tools.filter((name) => name.startsWith('mcp__'))).toEqual([
        'mcp__probe__secret',
        'mcp__probe__stamp',
        'mcp__probe__where',
      ]);
      const results = toolResults(childCalls[2]).map((m) => m.text);
      expect(results[0]).toBe('answered by worker w-mcp');
      // The composed rules decide each call, as for a local child: the project's deny holds on the worker.
      expect(results[1]).toMatch(/denied/i);
      expect(results[1]).not.toContain('the secret');
      // The root's own main agent does see its own server.
      const mainCall = server.requests.find((r) => r.view.messages[0]?.text === 'go');
      expect(mainCall?.view.tools).toContain('mcp__rootprobe__where');
    },
    TIMEOUT,
  );
});
