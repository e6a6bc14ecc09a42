import { z } from 'zod';

export const PROVIDER_TYPES = ['openai-compatible', 'openai', 'anthropic', 'scripted'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const ProviderAliasSchema = z
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
export type ProviderAlias = z.infer<typeof ProviderAliasSchema>;

export const PermissionBlockSchema = z
  .object({
    allow: z.array(z.string()).optional(),
    ask: z.array(z.string()).optional(),
    deny: z.array(z.string()).optional(),
  })
  .strict();
export type PermissionBlock = z.infer<typeof PermissionBlockSchema>;

export const McpServerSchema = z.union([
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
export type McpServerConfig = z.infer<typeof McpServerSchema>;

const role = z.string().min(1).nullable().optional();

/** Subagents on remote workers (issue 18): the root's backend, and what a `cadre worker` accepts. */
export const WorkersSchema = z
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
export type WorkersConfig = z.infer<typeof WorkersSchema>;
const concurrency = z.number().int().min(1).max(32);

export const ConfigSchema = z
  .object({
    $schema: z.string().optional(),
    providers: z.record(z.string(), ProviderAliasSchema).optional(),
    provider: z.string().min(1).nullable().optional(),
    model: z.string().min(1).nullable().optional(),
    subagent_provider: role,
    summarization_provider: role,
    review_provider: role,
    escalation_provider: role,
    critic_provider: role,
    approval_provider: role,
    /** `review_provider` reviews the session's diff at the end (SPEC 4.3). */
    session_review: z.boolean().optional(),
    /** Skills turned off everywhere: not listed, not loadable, not force-loaded (issue 16 B6). */
    disabled_skills: z.array(z.string().min(1)).optional(),
    /** Profiles in config form; validated by the profile loader, which warns instead of failing. */
    agents: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    subagent_dispatch_strategy: z.string().optional(),
    subagent_write_isolation: z.enum(['auto', 'worktree', 'serialize']).optional(),
    max_subagent_concurrency: concurrency.optional(),
    max_parallel_writers: concurrency.optional(),
    subagent_model: z.string().min(1).nullable().optional(),
    subagent_effort: z.string().min(1).nullable().optional(),
    subagent_models: z.record(z.string(), z.string()).optional(),
    subagent_efforts: z.record(z.string(), z.string()).optional(),
    mission_repo: z.string().nullable().optional(),
    mcp_servers: z.record(z.string(), McpServerSchema).optional(),
    permission: PermissionBlockSchema.optional(),
    sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
    /** More paths emptied inside the sandbox: `~/x`, `/abs`, or relative to the project. */
    sandbox_hide: z.array(z.string().min(1)).optional(),
    /** Environment variables (names or `*` globs) kept although they look like secrets. */
    sandbox_env_allow: z.array(z.string().min(1)).optional(),
    /** Network inside the sandbox (never under --safety read-only). Default true. */
    sandbox_network: z.boolean().optional(),
    /** Projects whose own config may run things and loosen the walls (`cadre trust`); global config only. */
    trusted_roots: z.array(z.string().min(1)).optional(),
    workers: WorkersSchema.optional(),
  })
  .strict();
export type Config = z.infer<typeof ConfigSchema>;
