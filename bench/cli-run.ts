import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptedServer } from '../src/provider/scripted/server.js';

/** `CADRE_BENCH_BIN` measures another build (e.g. a copy that a concurrent `npm run build` cannot replace). */
export const CADRE_BIN =
  process.env.CADRE_BENCH_BIN ?? fileURLToPath(new URL('../bin/cadre.js', import.meta.url));

/** The scripted server's clock (epoch ms with sub-ms precision), so spawn and request times compare. */
export const now = (): number => performance.timeOrigin + performance.now();

/** Preloaded into a measured process to report its peak resident memory. */
const MAX_RSS = fileURLToPath(new URL('./max-rss.mjs', import.meta.url));

export interface BenchProject {
  root: string;
  dir: string;
  configDir: string;
  /** `XDG_CACHE_HOME` of the runs: the code cache a first run writes is the project's, not the user's. */
  cacheHome: string;
  cleanup(): void;
}

/** A throwaway project whose main provider is `server`, over the OpenAI or the Anthropic wire. */
export function benchProject(server: ScriptedServer, wire: 'openai' | 'anthropic' = 'openai'): BenchProject {
  const root = mkdtempSync(join(tmpdir(), 'cadre-bench-'));
  const dir = join(root, 'project');
  const configDir = join(root, 'config');
  mkdirSync(join(dir, '.cadre'), { recursive: true });
  mkdirSync(configDir);
  const provider =
    wire === 'openai'
      ? { type: 'openai-compatible', base_url: server.openaiBaseUrl }
      : { type: 'anthropic', base_url: server.anthropicBaseUrl };
  const config = {
    providers: { bench: { ...provider, model: 'bench-model', api_key: 'bench' } },
    provider: 'bench',
  };
  writeFileSync(join(dir, '.cadre', 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(dir, 'small.txt'), 'a small file\nof three\nlines\n');
  return {
    root,
    dir,
    configDir,
    cacheHome: join(root, 'cache'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface TimedRun {
  spawnedAt: number;
  exitedAt: number;
  code: number | null;
  stderr: string;
  /** Peak resident memory in MiB, when asked for with `rss`. */
  peakRssMb?: number;
}

/** Spawns `node <args>` and times it from just before spawn to exit. */
export function timedNode(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const spawnedAt = now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ spawnedAt, exitedAt: now(), code, stderr }));
  });
}

/**
 * `cadre <args>` in `project`, with nothing from the user's own configuration, keys or caches. With `rss`,
 * the process also reports its peak resident memory (a separate run from the timed ones: the preload
 * costs).
 */
export async function timedCadre(
  project: BenchProject,
  args: string[],
  options: { rss?: boolean } = {},
): Promise<TimedRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    CADRE_CONFIG_DIR: project.configDir,
    XDG_CACHE_HOME: project.cacheHome,
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  const rssFile = join(project.root, 'max-rss.txt');
  if (options.rss) env.CADRE_BENCH_RSS_FILE = rssFile;
  const preload = options.rss ? ['--import', MAX_RSS] : [];
  const run = await timedNode([...preload, CADRE_BIN, ...args], project.dir, env);
  if (run.code !== 0) throw new Error(`cadre ${args.join(' ')} exited ${run.code}:\n${run.stderr}`);
  if (options.rss) run.peakRssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  return run;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spread(values: number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
}
