import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cadreConfigDir } from '../util/config-dir.js';
import { describeSchemaIssue, parseJsonc } from '../util/json-errors.js';
import { readRegularTextFile } from '../util/read-text.js';
import { type Config, configSchemaFor } from './schema.js';
import {
  ADDITIVE_LIST_KEYS,
  confineProjectConfig,
  isTrustedRoot,
  type UntrustedItem,
  untrustedWarning,
} from './trust.js';

/** A configuration problem the user must fix; the CLI turns it into exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface LoadedConfig {
  config: Config;
  /** Files read, global first, each with its own parsed content (permission layers are per file). */
  files: { path: string; text: string; config: Config }[];
  globalDir: string;
  projectRoot: string;
  /** Trusted roots from the global config, or `--trust-project`: the project config applies whole. */
  projectTrusted: boolean;
  /** What the untrusted project's config asked for and did not get (empty when trusted). */
  untrusted: UntrustedItem[];
  /** The one start-up warning about `untrusted`, naming how to trust. */
  untrustedWarning?: { path: string; reason: string };
}

export interface LoadOptions {
  /** `--trust-project`: trust the project for this run whatever the trusted roots say. */
  trustProject?: boolean;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return cadreConfigDir(env);
}

/** The nearest ancestor holding `.git`, else `cwd` itself (SPEC 2.1). */
export function findProjectRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

/** Parses one JSON-with-comments config file and validates it against the schema. */
export function parseConfigFile(path: string, text: string): Config {
  const parsed = parseJsonc(text, path, 'configuration');
  if (!parsed.ok) throw new ConfigError(`${parsed.message}; expected a JSON object with optional comments`);
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${path}: expected a JSON object at the top level`);
  }
  // Without zod's compiled fast path: generating and compiling it costs more than one parse saves (issue 17).
  const result = configSchemaFor(value).safeParse(value, { jitless: true });
  if (!result.success) {
    throw new ConfigError(describeSchemaIssue(result.error.issues[0], path, 'configuration', text).message);
  }
  return result.data;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Project over global; maps (providers, agents, mcp_servers, …) merge key by key. */
export function deepMerge<T>(base: T, over: T): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
  return out as T;
}

/**
 * The global config, then the project's. The project is trusted when `trustProject` says so or its root
 * lies in the global config's `trusted_roots`; until then its config is confined (src/config/trust.ts) and
 * what it was denied comes back as `untrusted`, with one warning.
 */
export function loadConfig(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): LoadedConfig {
  const globalDir = configDir(env);
  const projectRoot = findProjectRoot(cwd);
  const globalPath = join(globalDir, 'config.json');
  const projectPath = join(projectRoot, '.cadre', 'config.json');
  const globalFile = readConfigFile(globalPath);
  const projectFile = projectPath === globalPath ? undefined : readConfigFile(projectPath);
  const globalConfig = globalFile?.config ?? {};
  const projectTrusted =
    options.trustProject === true || isTrustedRoot(projectRoot, globalConfig.trusted_roots);
  let untrusted: UntrustedItem[] = [];
  if (projectFile && !projectTrusted) {
    const confined = confineProjectConfig(globalConfig, projectFile.config, env);
    projectFile.config = confined.config;
    untrusted = confined.skipped;
  }
  const files = [globalFile, projectFile].filter((f) => f !== undefined);
  let config: Config = {};
  for (const file of files) config = deepMerge(config, file.config);
  for (const key of ADDITIVE_LIST_KEYS) {
    const lists = files.flatMap((f) => f.config[key] ?? []);
    if (lists.length > 0) config[key] = [...new Set(lists)];
  }
  const reason = untrustedWarning(projectRoot, untrusted);
  return {
    config,
    files,
    globalDir,
    projectRoot,
    projectTrusted,
    untrusted,
    ...(reason && projectFile ? { untrustedWarning: { path: projectFile.path, reason } } : {}),
  };
}

function readConfigFile(path: string): LoadedConfig['files'][number] | undefined {
  if (!existsSync(path)) return undefined;
  const read = readRegularTextFile(path);
  if (!read.ok) throw new ConfigError(`${path}: ${read.reason}`);
  const parsed = parseConfigFile(path, read.text);
  resolveRelativePaths(parsed, dirname(path));
  return { path, text: read.text, config: parsed };
}

/** Paths inside a config file are relative to that file's directory. */
function resolveRelativePaths(config: Config, dir: string): void {
  for (const alias of Object.values(config.providers ?? {})) {
    if (alias.script) alias.script = resolve(dir, alias.script);
  }
  if (config.mission_repo) config.mission_repo = resolve(dir, config.mission_repo);
}
