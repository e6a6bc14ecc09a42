import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptTurn } from '../src/provider/scripted/script.js';
import { type ScriptedServer, startScriptedServer } from '../src/provider/scripted/server.js';
import { benchProject, median, now, timedCadre } from './cli-run.js';
import type { Figure } from './report.js';
import { FIRST_ANSWER_MS, failedResults, mixedCall, mixedScript, NOTES } from './turns.js';

const CALLS = 10;

/** cadre doing the 10-call task (bash, read, grep, edit; first answer 500 ms): spawn to exit, per run. */
async function cadreTask(runs: number): Promise<number[]> {
  const server = await startScriptedServer({ rules: [{ turns: mixedScript(CALLS) }] });
  const project = benchProject(server);
  try {
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(join(project.dir, 'notes.txt'), NOTES);
      const before = server.requests.length;
      const run = await timedCadre(project, ['-p', 'work on notes.txt', '--yes']);
      const requests = server.requests.slice(before);
      if (requests.length !== CALLS + 1)
        throw new Error(`peers: cadre made ${requests.length} model requests`);
      const failed = failedResults(requests);
      if (failed.length > 0) throw new Error(`peers: cadre's calls failed: ${failed[0]}`);
      walls.push(run.exitedAt - run.spawnedAt);
    }
    return walls;
  } finally {
    project.cleanup();
    await server.close();
  }
}

/** The same four kinds of call as Codex makes them: every one through its shell tool. */
function shellCommand(i: number): string {
  const call = mixedCall(i);
  const args = call.arguments as Record<string, string>;
  switch (call.name) {
    case 'bash':
      return args.command;
    case 'read':
      return `cat -n ${args.path}`;
    case 'grep':
      return `grep -rnE '${args.pattern}' ${args.path}`;
    default:
      return `sed -i 's/${args.old_string}/${args.new_string}/' ${args.path}`;
  }
}

function codexScript(): ScriptTurn[] {
  return [
    ...Array.from({ length: CALLS }, (_, i) => ({
      ...(i === 0 ? { delay_ms: FIRST_ANSWER_MS } : {}),
      tool_calls: [{ name: 'exec_command', arguments: { cmd: shellCommand(i) } }],
    })),
    { text: 'done' },
  ];
}

function runCodex(
  bin: string,
  server: ScriptedServer,
  dir: string,
  home: string,
  userHome: string,
): Promise<number> {
  const args = [
    'exec',
    '--skip-git-repo-check',
    '-s',
    'workspace-write',
    '-m',
    'bench-model',
    '-c',
    'model_provider="bench"',
    '-c',
    `model_providers.bench={ name = "bench", base_url = "${server.url}/v1", wire_api = "responses", env_key = "BENCH_KEY" }`,
    // Codex's sandbox keeps `<writable root>/.git` read-only and bwrap creates the mount point: with /tmp
    // writable that leaves an empty /tmp/.git, which turns every project under /tmp into one rooted at /tmp.
    '-c',
    'sandbox_workspace_write.exclude_slash_tmp=true',
    '-c',
    'sandbox_workspace_write.exclude_tmpdir_env_var=true',
    'work on notes.txt',
  ];
  return new Promise((resolve, reject) => {
    const spawnedAt = now();
    const child = spawn(bin, args, {
      cwd: dir,
      env: { ...process.env, CODEX_HOME: home, HOME: userHome, BENCH_KEY: 'bench' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(now() - spawnedAt)
        : reject(new Error(`codex exited ${code}:\n${stderr.slice(-2000)}`)),
    );
  });
}

/** Codex (`CADRE_BENCH_CODEX`: its executable) doing the same task through its shell tool. */
async function codexTask(bin: string, runs: number): Promise<{ walls: number[]; version: string }> {
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const server = await startScriptedServer({ rules: [{ turns: codexScript() }] });
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-codex-'));
  // Codex refuses to keep its helper binaries under a temporary directory.
  const home = join(homedir(), '.cache', 'cadre-bench-codex-home');
  // Codex runs each command in a login shell, which reads the user's ~/.profile and ~/.bashrc (on a
  // machine with pyenv, seconds per command): an empty home measures Codex, not the user's shell setup,
  // as cadre's non-login `bash -c` is measured.
  const userHome = join(home, 'home');
  const dir = join(root, 'project');
  mkdirSync(dir, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  try {
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(join(dir, 'notes.txt'), NOTES);
      const before = server.requests.length;
      walls.push(await runCodex(bin, server, dir, home, userHome));
      const requests = server.requests.slice(before);
      if (requests.length !== CALLS + 1)
        throw new Error(`peers: codex made ${requests.length} model requests`);
      const failed = failedResults(requests);
      if (failed.length > 0) throw new Error(`peers: codex's calls failed: ${failed[0]}`);
    }
    return { walls, version };
  } finally {
    rmSync(root, { recursive: true, force: true });
    await server.close();
  }
}

/**
 * Issue 17: 10 sequential tool calls, whole process wall time, cadre against Codex. Peers are never
 * dependencies of cadre: install them in a temporary prefix and name the executable in `CADRE_BENCH_CODEX`;
 * without it only cadre's figure is printed. The peer's version is part of the figure's name.
 */
export async function benchPeers(runs = 5): Promise<Figure[]> {
  const cadre = median(await cadreTask(runs));
  const figures: Figure[] = [
    {
      key: 'peers.cadre_10_calls_ms',
      name: `${CALLS} sequential tool calls (bash, read, grep, edit), spawn to exit: cadre (${runs} runs)`,
      value: cadre,
      unit: 'ms',
    },
  ];
  const codexBin = process.env.CADRE_BENCH_CODEX;
  if (codexBin) {
    const codex = await codexTask(codexBin, runs);
    const codexMs = median(codex.walls);
    figures.push(
      {
        key: 'peers.codex_10_calls_ms',
        name: `  same task: ${codex.version} through its shell tool (${runs} runs)`,
        value: codexMs,
        unit: 'ms',
        note: codex.version,
      },
      {
        key: 'peers.cadre_vs_codex',
        name: '  cadre / codex',
        value: cadre / codexMs,
        unit: 'x',
        target: { max: 0.45 },
      },
    );
  }
  return figures;
}
