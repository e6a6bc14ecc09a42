import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { ViewMessage } from '../../src/provider/scripted/request-view.js';
import type { RecordedRequest, ScriptedServer } from '../../src/provider/scripted/server.js';
import {
  type MakeProjectOptions,
  makeProject,
  REPO_ROOT,
  type RunCadreOptions,
  type RunCadreResult,
  runCadre,
  type TestProject,
} from '../support/cli.js';
import { script, scriptedServer } from '../support/llm-server.js';

/** `openai`: chat completions (`openai-compatible`); `responses`: the Responses API (`type: openai`). */
export type Wire = 'openai' | 'responses' | 'anthropic';

/** Retries wait milliseconds, not seconds, so failure paths stay fast (see `retryPolicyFromEnv`). */
const FAST_RETRY_ENV = { CADRE_RETRY_BASE_MS: '5' };

/** A `providers` alias pointing at the test's server through the given wire format. */
export function providerFor(server: ScriptedServer, wire: Wire) {
  const type = { openai: 'openai-compatible', responses: 'openai', anthropic: 'anthropic' }[wire];
  const base_url = wire === 'anthropic' ? server.anthropicBaseUrl : server.openaiBaseUrl;
  return { type, base_url, model: 'scripted-model', api_key: 'scripted' };
}

export interface ServedProjectOptions extends Omit<MakeProjectOptions, 'config'> {
  wire?: Wire;
  /** Extra project config keys, merged over the provider setup. */
  config?: Record<string, unknown>;
}

/**
 * A project with `session_review` on whose model writes `new.txt` in its one turn and whose reviewer
 * answers one finding: what every client shows at the end of a session.
 */
export async function reviewedWriteProject(): Promise<TestProject> {
  const server = await scriptedServer(
    script()
      .rule({ system: 'You review the changes' })
      .text('1. new.txt:1 (low) the greeting is untested')
      .rule()
      .turn((t) => t.tool('write', { path: 'new.txt', content: 'hello\n' }))
      .text('wrote it'),
  );
  return servedProject(server, {
    git: true,
    config: { permission: { allow: ['write'] }, session_review: true },
  });
}

/** A temporary project whose config sends the main loop to `server`; removed when the test ends. */
export function servedProject(server: ScriptedServer, options: ServedProjectOptions = {}): TestProject {
  const { wire = 'openai', config = {}, ...rest } = options;
  const project = makeProject({
    ...rest,
    config: { providers: { fake: providerFor(server, wire) }, provider: 'fake', ...config },
  });
  onTestFinished(() => project.cleanup());
  return project;
}

/** `cadre <args>` run in `project` with its own global config dir. */
export function cadreIn(
  project: TestProject,
  args: string[],
  options: Omit<RunCadreOptions, 'cwd'> = {},
): Promise<RunCadreResult> {
  return runCadre(args, {
    ...options,
    cwd: project.dir,
    env: { CADRE_CONFIG_DIR: project.configDir, ...FAST_RETRY_ENV, ...options.env },
  });
}

/** The tool results a request carries, in order. */
export function toolResults(request: RecordedRequest): ViewMessage[] {
  return request.view.messages.filter((m) => m.role === 'tool');
}

/** Every line of stream-json output, parsed (throws on a line that is not JSON). */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export interface LiveCadre {
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Resolves once stdout matches `pattern` (rejects if the process exits first). */
  waitForStdout(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null when killed) and signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts cadre without waiting for it, for tests that kill it mid-run. Killed when the test ends. */
export function startCadre(project: TestProject, args: string[]): LiveCadre {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    CADRE_CONFIG_DIR: project.configDir,
    ...FAST_RETRY_ENV,
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'cadre.js'), ...args], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitForStdout = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stdout.match(pattern);
        if (!match) return;
        child.stdout?.off('data', check);
        resolve(match);
      };
      child.stdout?.on('data', check);
      child.once('exit', () => reject(new Error(`cadre exited before printing ${pattern}:\n${stdout}`)));
      check();
    });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stdout: () => stdout, waitForStdout, exited };
}
