import { z } from 'zod';

export const PROVIDER_TYPES = ['openai-compatible', 'openai', 'anthropic', 'scripted'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

const providerAliasSchema = () =>
  z
    .object({
      type: z.enum(PROVIDER_TYPES),
      model: z.string().min(1).optional(),
      base_url: z.string().url().optional(),
      api_key: z.string().optional(),
      api_key_env: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      /** scripted only: path of the JSON script (relative to the config file's directory). */
      script: z.string().optional(),
      /** Context window in tokens, for compaction; defaults from the model table. */
      context_window: z.number().int().positive().optional(),
      /** How long to wait for the server to start answering (default 60000). */
      connect_timeout_ms: z.number().int().positive().optional(),
      /** How long the answer's stream may stay silent between chunks (default 300000). */
      idle_timeout_ms: z.number().int().positive().optional(),
    })
    .strict()
    .refine((p) => p.type !== 'scripted' || p.script !== undefined, {
      message: 'a scripted provider needs "script"',
      path: ['script'],
    })
    .refine((p) => p.type !== 'openai-compatible' || p.base_url !== undefined, {
      message: 'an openai-compatible provider needs "base_url" (e.g. http://127.0.0.1:11434/v1 for Ollama)',
      path: ['base_url'],
    });
export type ProviderAlias = z.infer<ReturnType<typeof providerAliasSchema>>;

const permissionBlockSchema = () =>
  z
    .object({
      allow: z.array(z.string()).optional(),
      ask: z.array(z.string()).optional(),
      deny: z.array(z.string()).optional(),
    })
    .strict();
export type PermissionBlock = z.infer<ReturnType<typeof permissionBlockSchema>>;

const mcpServerSchema = () =>
  z.union([
    z
      .object({
        command: z.string().min(1),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
        cwd: z.string().optional(),
      })
      .strict(),
    z
      .object({
        url: z.string().url(),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .strict(),
  ]);
export type McpServerConfig = z.infer<ReturnType<typeof mcpServerSchema>>;

const role = () => z.string().min(1).nullable().optional();

/** Subagents on remote workers (issue 18): the root's backend, and what a `cadre worker` accepts. */
const workersSchema = () =>
  z
    .object({
      /** `local` (default): children run in this process; `queue`: on `cadre worker`s through Redis. */
      backend: z.enum(['local', 'queue']).optional(),
      /** `redis://host:port/db`; a worker's `--redis` overrides it. */
      redis: z.string().min(1).optional(),
      /** The shared git repository's URL, as root and workers reach it (compared exactly by workers). */
      repository: z.string().min(1).optional(),
      /** The environment variable holding the shared job-signing secret. */
      secret_env: z.string().min(1).optional(),
      /** A worker silent this long has its job handed back (BullMQ stalled-job detection). Default 30000. */
      stalled_after_ms: z.number().int().positive().optional(),
      /** A job no worker takes within this fails with that reason. Default 120000. */
      pickup_timeout_ms: z.number().int().positive().optional(),
      /** A remote child's ask nobody answers within this is denied with the reason. Default 600000. */
      ask_timeout_ms: z.number().int().positive().optional(),
      /** Redis unreachable: `local` runs new tasks in this process, `fail` (default) fails them. */
      fallback: z.enum(['local', 'fail']).optional(),
    })
    .strict();
export type WorkersConfig = z.infer<ReturnType<typeof workersSchema>>;
const concurrency = () => z.number().int().min(1).max(32);

/**
 * Each top-level key's schema, built only for a file that has the key: building them all took about
 * 450 KB of zod objects on every start, for a config that names two or three keys (issue 17).
 */
const CONFIG_KEYS = {
  $schema: () => z.string().optional(),
  providers: () => z.record(z.string(), providerAliasSchema()).optional(),
  provider: () => z.string().min(1).nullable().optional(),
  model: () => z.string().min(1).nullable().optional(),
  subagent_provider: () => role(),
  summarization_provider: () => role(),
  review_provider: () => role(),
  escalation_provider: () => role(),
  critic_provider: () => role(),
  approval_provider: () => role(),
  /** `review_provider` reviews the session's diff at the end (SPEC 4.3). */
  session_review: () => z.boolean().optional(),
  /** Skills turned off everywhere: not listed, not loadable, not force-loaded (issue 16 B6). */
  disabled_skills: () => z.array(z.string().min(1)).optional(),
  /** Profiles in config form; validated by the profile loader, which warns instead of failing. */
  agents: () => z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  subagent_dispatch_strategy: () => z.string().optional(),
  subagent_write_isolation: () => z.enum(['auto', 'worktree', 'serialize']).optional(),
  max_subagent_concurrency: () => concurrency().optional(),
  max_parallel_writers: () => concurrency().optional(),
  subagent_model: () => z.string().min(1).nullable().optional(),
  subagent_effort: () => z.string().min(1).nullable().optional(),
  subagent_models: () => z.record(z.string(), z.string()).optional(),
  subagent_efforts: () => z.record(z.string(), z.string()).optional(),
  mission_repo: () => z.string().nullable().optional(),
  mcp_servers: () => z.record(z.string(), mcpServerSchema()).optional(),
  permission: () => permissionBlockSchema().optional(),
  sandbox: () => z.enum(['auto', 'bwrap', 'none']).optional(),
  /** More paths emptied inside the sandbox: `~/x`, `/abs`, or relative to the project. */
  sandbox_hide: () => z.array(z.string().min(1)).optional(),
  /** Environment variables (names or `*` globs) kept although they look like secrets. */
  sandbox_env_allow: () => z.array(z.string().min(1)).optional(),
  /** Network inside the sandbox (never under --safety read-only). Default true. */
  sandbox_network: () => z.boolean().optional(),
  /** Projects whose own config may run things and loosen the walls (`cadre trust`); global config only. */
  trusted_roots: () => z.array(z.string().min(1)).optional(),
  workers: () => workersSchema().optional(),
};
type ConfigKey = keyof typeof CONFIG_KEYS;

function objectOf<K extends ConfigKey>(keys: readonly K[]) {
  const shape = {} as { [P in K]: ReturnType<(typeof CONFIG_KEYS)[P]> };
  for (const key of keys) shape[key] = CONFIG_KEYS[key]() as (typeof shape)[K];
  return z.object(shape).strict();
}

/** The whole config schema (for the editors' JSON Schema and the types). */
export const configSchema = () => objectOf(Object.keys(CONFIG_KEYS) as ConfigKey[]);
export type Config = z.infer<ReturnType<typeof configSchema>>;

/**
 * The schema that validates `value`: its known keys' schemas, in the whole schema's order, and strict, so
 * an unknown key is reported as by the whole schema and every issue comes in the same order.
 */
export function configSchemaFor(value: object) {
  return objectOf((Object.keys(CONFIG_KEYS) as ConfigKey[]).filter((key) => Object.hasOwn(value, key)));
}
