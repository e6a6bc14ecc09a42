import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { findNodeAtLocation, type ParseError, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { z } from 'zod';
import { type Config, ConfigSchema } from './schema.js';

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
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CADRE_CONFIG_DIR ? resolve(env.CADRE_CONFIG_DIR) : join(homedir(), '.config', 'cadre');
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

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** Parses one JSON-with-comments config file and validates it against the schema. */
export function parseConfigFile(path: string, text: string): Config {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0];
    throw new ConfigError(
      `${path}:${lineOf(text, e.offset)}: invalid JSON (${printParseErrorCode(e.error)}); expected a JSON object with optional comments`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${path}: expected a JSON object at the top level`);
  }
  const result = ConfigSchema.safeParse(value);
  if (!result.success) throw new ConfigError(describeIssue(path, text, result.error.issues[0]));
  return result.data;
}

function describeIssue(path: string, text: string, issue: z.core.$ZodIssue): string {
  const tree = parseTree(text);
  const keys = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  let segment = [...keys];
  if (issue.code === 'unrecognized_keys') segment = [...keys, issue.keys[0]];
  const node = tree ? findNodeAtLocation(tree, segment) : undefined;
  const where = node ? `${path}:${lineOf(text, node.offset)}` : path;
  const jsonPath = formatPath(segment);
  const expectation =
    issue.code === 'unrecognized_keys'
      ? `unknown key "${issue.keys.join('", "')}"`
      : issue.message.replace(/^Invalid input: /, '');
  return `${where}: invalid configuration at ${jsonPath}: ${expectation}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Project over global; maps (providers, agents, mcp_servers, …) merge key by key. */
export function deepMerge<T>(base: T, over: T): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? deepMerge(out[k], v) : v;
  return out as T;
}

export function loadConfig(cwd: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const globalDir = configDir(env);
  const projectRoot = findProjectRoot(cwd);
  const candidates = [join(globalDir, 'config.json'), join(projectRoot, '.cadre', 'config.json')];
  const files: LoadedConfig['files'] = [];
  let config: Config = {};
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`${path}: cannot read (${(err as Error).message})`);
    }
    const parsed = parseConfigFile(path, text);
    resolveRelativePaths(parsed, dirname(path));
    files.push({ path, text, config: parsed });
    config = deepMerge(config, parsed);
  }
  return { config, files, globalDir, projectRoot };
}

/** Paths inside a config file are relative to that file's directory. */
function resolveRelativePaths(config: Config, dir: string): void {
  for (const alias of Object.values(config.providers ?? {})) {
    if (alias.script) alias.script = resolve(dir, alias.script);
  }
  if (config.mission_repo) config.mission_repo = resolve(dir, config.mission_repo);
}
