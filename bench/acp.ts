import { spawn } from 'node:child_process';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { type BenchProject, benchProject, CADRE_BIN, median, now, timedCadre } from './cli-run.js';

export interface AcpStartResult {
  runs: number;
  /** Spawn of `cadre acp` to its `initialize` response. */
  initializeMs: number;
  /** Spawn to the first `agent_message_chunk` of a prompt sent right after `session/new`. */
  firstChunkMs: number;
  /** Spawn of `cadre -p hi` to its first model request, each run next to an ACP one. */
  headlessFirstRequestMs: number;
  /** Each ACP first chunk over the headless first request next to it (median of the ratios). */
  firstChunkRatio: number;
}

/** One `cadre acp` process driven over raw JSON-RPC lines, timing the two moments from spawn. */
function timedAcp(project: BenchProject): Promise<{ initialize: number; firstChunk: number }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CADRE_CONFIG_DIR: project.configDir };
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    const spawnedAt = now();
    const child = spawn(process.execPath, [CADRE_BIN, 'acp'], { cwd: project.dir, env });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let initialize = 0;
    let buffered = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (initialize === 0) reject(new Error(`cadre acp exited ${code} before answering:\n${stderr}`));
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (message.id === 1) {
          initialize = now() - spawnedAt;
          send({
            jsonrpc: '2.0',
            id: 2,
            method: 'session/new',
            params: { cwd: project.dir, mcpServers: [] },
          });
        } else if (message.id === 2) {
          const prompt = [{ type: 'text', text: 'hi' }];
          send({
            jsonrpc: '2.0',
            id: 3,
            method: 'session/prompt',
            params: { sessionId: message.result.sessionId, prompt },
          });
        } else if (message.params?.update?.sessionUpdate === 'agent_message_chunk') {
          const firstChunk = now() - spawnedAt;
          child.stdin.end();
          resolve({ initialize, firstChunk });
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
  });
}

/**
 * `cadre acp` start-up: spawn to `initialize`, and to the first streamed chunk (the headless budget). Each
 * run is paired with a headless `cadre -p hi` against the same server, so the ratio holds on a busy machine.
 */
export async function benchAcpStart(runs = 10): Promise<AcpStartResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'hi' }] }] });
  const project = benchProject(server);
  try {
    // One unmeasured run creates the session database, as on any machine that has run cadre before.
    await timedAcp(project);
    const initialize: number[] = [];
    const firstChunk: number[] = [];
    const headless: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = server.requests.length;
      const cold = await timedCadre(project, ['-p', 'hi']);
      const first = server.requests[before];
      if (!first) throw new Error('acp bench: cadre -p exited without calling the model');
      const run = await timedAcp(project);
      initialize.push(run.initialize);
      firstChunk.push(run.firstChunk);
      headless.push(first.startedAt - cold.spawnedAt);
      ratios.push(run.firstChunk / (first.startedAt - cold.spawnedAt));
    }
    return {
      runs,
      initializeMs: median(initialize),
      firstChunkMs: median(firstChunk),
      headlessFirstRequestMs: median(headless),
      firstChunkRatio: median(ratios),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
