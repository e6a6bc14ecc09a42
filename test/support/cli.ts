import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CADRE_BIN = join(REPO_ROOT, 'bin', 'cadre.js');
const BUNDLE = join(REPO_ROOT, 'dist', 'cli.js');

/** Real credentials never reach a test run: a misrouted test must fail, not call a paid API. */
const SCRUBBED_ENV = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'];

export interface RunCadreOptions {
  /** Default: a fresh empty temp dir, so a test never runs cadre against the repo itself. */
  cwd?: string;
  /** Added to the environment; `undefined` removes a variable. Without CADRE_CONFIG_DIR a fresh temp dir is used. */
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Default 20 s; on expiry the process is killed and the promise rejects with what it printed. */
  timeoutMs?: number;
  /** Script to run instead of `bin/cadre.js`; for testing this helper itself. */
  entry?: string;
}

export interface RunCadreResult {
  /** Exit code; null when the process died from a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

function childEnv(extra: Record<string, string | undefined>, configDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CADRE_CONFIG_DIR: configDir };
  for (const name of SCRUBBED_ENV) delete env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

let bundleChecked = false;

/** The newest modification time under `dir` (source files only), with the file that has it. */
function newestSource(dir: string): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const candidate = entry.isDirectory()
      ? newestSource(path)
      : /\.(ts|txt|json)$/.test(entry.name)
        ? { path, mtimeMs: statSync(path).mtimeMs }
        : undefined;
    if (candidate && candidate.mtimeMs > newest.mtimeMs) newest = candidate;
  }
  return newest;
}

/**
 * The CLI tests run the bundle, so a bundle older than the sources would test old code and could pass:
 * checked once per test file (one directory walk), failing with what to do. `npm test` builds first.
 */
export function assertFreshBundle(bundle = BUNDLE, sourceDir = join(REPO_ROOT, 'src')): void {
  if (bundleChecked && bundle === BUNDLE) return;
  if (!existsSync(bundle))
    throw new Error(`${bundle} is missing: run \`npm run build\` before the CLI tests`);
  const newest = newestSource(sourceDir);
  if (newest.mtimeMs > statSync(bundle).mtimeMs) {
    throw new Error(
      `${bundle} is older than ${newest.path}: run \`npm run build\` (npm test does) before the CLI tests`,
    );
  }
  if (bundle === BUNDLE) bundleChecked = true;
}

/** Runs the built CLI (`node bin/cadre.js …`, i.e. `dist/cli.js`) as a user would. */
export async function runCadre(args: string[], options: RunCadreOptions = {}): Promise<RunCadreResult> {
  const entry = options.entry ?? CADRE_BIN;
  if (entry === CADRE_BIN) assertFreshBundle();
  const scratch = mkdtempSync(join(tmpdir(), 'cadre-run-'));
  const scratchConfig = join(scratch, 'config');
  const scratchCwd = join(scratch, 'cwd');
  mkdirSync(scratchConfig);
  mkdirSync(scratchCwd);
  const env = childEnv(options.env ?? {}, scratchConfig);
  const timeoutMs = options.timeoutMs ?? 20_000;
  try {
    return await new Promise<RunCadreResult>((resolve, reject) => {
      const child = spawn(process.execPath, [entry, ...args], { cwd: options.cwd ?? scratchCwd, env });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(
            `cadre ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
      }, timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      // A child that exits without reading stdin makes the write fail with EPIPE; that is not a test failure.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin ?? '');
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface MakeProjectOptions {
  /** Relative path → content; parent directories are created. */
  files?: Record<string, string>;
  /** Written as `.cadre/config.json` (objects are serialised, strings written as given). */
  config?: object | string;
  /** `git init` and commit the files, so worktrees and diffs have a base. */
  git?: boolean;
}

export interface TestProject {
  dir: string;
  /** A separate, empty global config dir, for `env: { CADRE_CONFIG_DIR: project.configDir }`. */
  configDir: string;
  path(relative: string): string;
  cleanup(): void;
}

function git(dir: string, args: string[]): void {
  execFileSync(
    'git',
    [
      '-c',
      'user.name=cadre-test',
      '-c',
      'user.email=cadre-test@example.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
}

/** A throwaway project under the OS temp dir. Call `cleanup()` (e.g. in `onTestFinished`). */
export function makeProject(options: MakeProjectOptions = {}): TestProject {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-project-'));
  const configDir = mkdtempSync(join(tmpdir(), 'cadre-global-'));
  const path = (relative: string) => join(dir, relative);
  const files: Record<string, string> = { ...options.files };
  if (options.config !== undefined) {
    files['.cadre/config.json'] =
      typeof options.config === 'string' ? options.config : `${JSON.stringify(options.config, null, 2)}\n`;
  }
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(dirname(path(relative)), { recursive: true });
    writeFileSync(path(relative), content);
  }
  if (options.git) {
    git(dir, ['init', '-q', '-b', 'main']);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'initial']);
  }
  return {
    dir,
    configDir,
    path,
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
