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
  /** Spawn of `cadre acp` to its `session/new` response. */
  sessionNewMs: number;
  /** Spawn of `cadre acp` to the model server receiving its first request: where the headless figure ends. */
  firstRequestMs: number;
  /** Detail runs: `session/prompt` to the first chunk, sent once the session had been open and idle a while. */
  idlePromptRuns: number;
  idlePromptChunkMs: number;
}

/** How long a detail run's session stays idle before its prompt, as a person's first prompt would. */
const IDLE_BEFORE_PROMPT_MS = 300;

interface AcpRun {
  spawnedAt: number;
  initialize: number;
  sessionNew: number;
  firstChunk: number;
  /** `session/prompt` written to the first chunk read. */
  promptToChunk: number;
}

/**
 * One `cadre acp` process driven over raw JSON-RPC lines, timing its moments from spawn. Each request is sent
 * as soon as the previous answer arrives; with `idleMs`, the prompt that long after the `session/new` answer.
 */
function timedAcp(project: BenchProject, idleMs = 0): Promise<AcpRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NO_COLOR: '1',
      CADRE_CONFIG_DIR: project.configDir,
      XDG_CACHE_HOME: project.cacheHome,
    };
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    const spawnedAt = now();
    const child = spawn(process.execPath, [CADRE_BIN, 'acp'], { cwd: project.dir, env });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let initialize = 0;
    let sessionNew = 0;
    let promptedAt = 0;
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
          sessionNew = now() - spawnedAt;
          const prompt = [{ type: 'text', text: 'hi' }];
          const sendPrompt = () => {
            promptedAt = now();
            send({
              jsonrpc: '2.0',
              id: 3,
              method: 'session/prompt',
              params: { sessionId: message.result.sessionId, prompt },
            });
          };
          if (idleMs > 0) setTimeout(sendPrompt, idleMs);
          else sendPrompt();
        } else if (message.params?.update?.sessionUpdate === 'agent_message_chunk') {
          const chunkAt = now();
          child.stdin.end();
          resolve({
            spawnedAt,
            initialize,
            sessionNew,
            firstChunk: chunkAt - spawnedAt,
            promptToChunk: chunkAt - promptedAt,
          });
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
  });
}

/**
 * `cadre acp` start-up: spawn to `initialize`, and to the first streamed chunk (the headless budget). Each
 * run is paired with a headless `cadre -p hi` against the same server, so the ratio holds on a busy machine.
 * Detail: where the ACP run's first model request fell, and, in runs of their own, a first prompt's latency
 * on a session that was already open (what an editor's user waits for).
 */
export async function benchAcpStart(runs = 10, idlePromptRuns = 5): Promise<AcpStartResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'hi' }] }] });
  const project = benchProject(server);
  try {
    // Unmeasured runs create the session database and both modes' code caches, as on any machine that has
    // run cadre before.
    await timedAcp(project);
    await timedCadre(project, ['-p', 'hi']);
    const initialize: number[] = [];
    const sessionNew: number[] = [];
    const firstRequest: number[] = [];
    const firstChunk: number[] = [];
    const headless: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = server.requests.length;
      const cold = await timedCadre(project, ['-p', 'hi']);
      const first = server.requests[before];
      if (!first) throw new Error('acp bench: cadre -p exited without calling the model');
      const acpBefore = server.requests.length;
      const run = await timedAcp(project);
      const acpFirst = server.requests[acpBefore];
      if (!acpFirst) throw new Error('acp bench: cadre acp answered without calling the model');
      initialize.push(run.initialize);
      sessionNew.push(run.sessionNew);
      firstRequest.push(acpFirst.startedAt - run.spawnedAt);
      firstChunk.push(run.firstChunk);
      headless.push(first.startedAt - cold.spawnedAt);
      ratios.push(run.firstChunk / (first.startedAt - cold.spawnedAt));
    }
    const idlePrompt: number[] = [];
    for (let i = 0; i < idlePromptRuns; i++)
      idlePrompt.push((await timedAcp(project, IDLE_BEFORE_PROMPT_MS)).promptToChunk);
    return {
      runs,
      initializeMs: median(initialize),
      firstChunkMs: median(firstChunk),
      headlessFirstRequestMs: median(headless),
      firstChunkRatio: median(ratios),
      sessionNewMs: median(sessionNew),
      firstRequestMs: median(firstRequest),
      idlePromptRuns,
      idlePromptChunkMs: median(idlePrompt),
    };
  } finally {
    project.cleanup();
    await server.close();
  }
}
