import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { EFFORTS, TIERS } from './types.js';

/** The highest `subagent_max_turns` / `max-steps`. */
export const MAX_TURNS_LIMIT = 10_000;

const shown = (value: unknown) => JSON.stringify(value);

const text = (key: string) => z.string({ error: () => `"${key}" must be a string` });

const flag = (key: string) => z.boolean({ error: () => `"${key}" must be true or false` });

/** A YAML/JSON list, or one comma-separated string (Claude Code's `tools: Read, Grep`). */
const names = (key: string, what: string) =>
  z.union([z.string(), z.array(z.string())], { error: () => `"${key}" must be a list of ${what}` });

const effort = (key: string) =>
  z.enum(EFFORTS, {
    error: (issue) => `invalid "${key}" ${shown(issue.input)} (expected one of ${EFFORTS.join(', ')})`,
  });

const turns = (key: string) => {
  const error = (issue: { input?: unknown }) =>
    `invalid "${key}" ${shown(issue.input)} (expected a whole number from 1 to ${MAX_TURNS_LIMIT})`;
  return z.number({ error }).int({ error }).min(1, { error }).max(MAX_TURNS_LIMIT, { error });
};

const temperatureError = (issue: { input?: unknown }) =>
  `invalid "temperature" ${shown(issue.input)} (expected a number from 0 to 2)`;

const permissionList = z.array(z.string()).describe('rules: `tool` or `tool(pattern)` (SPEC 6.1)');

/**
 * Every frontmatter key of a profile (SPEC 3.2), the one definition behind validation, `PROFILE_KEYS` and
 * `schema/profile.schema.json`. Each message names the key and what was expected; `null` (an empty YAML
 * value) means unset. Unknown keys pass here: the loader names them in a warning. Each key's schema is
 * built when a profile first has the key: all of them took about 250 KB of zod objects on every start,
 * for profiles that set a handful of keys (issue 17).
 */
const PROFILE_FIELDS = {
  name: () =>
    text('name').nullish().describe('the profile name (files in .cadre/agents are named after the file)'),
  description: () =>
    text('description').nullish().describe('when to use this profile; shown to the model for `task`'),
  model: () => text('model').nullish().describe('a `providers` alias or a model name (SPEC 4.2)'),
  reasoning: () => effort('reasoning').nullish().describe('same as `effort`'),
  effort: () => effort('effort').nullish().describe('reasoning effort'),
  temperature: () =>
    z
      .number({ error: temperatureError })
      .min(0, { error: temperatureError })
      .max(2, { error: temperatureError })
      .nullish(),
  deny_tools: () =>
    names('deny_tools', 'tool names').nullish().describe('tools denied while the profile is active'),
  allow_tools: () =>
    names('allow_tools', 'tool names')
      .nullish()
      .describe('only these tools (every other built-in is denied)'),
  tools: () => names('tools', 'tool names').nullish().describe('Claude Code form of `allow_tools`'),
  disallowedTools: () =>
    names('disallowedTools', 'tool names').nullish().describe('Claude Code form of `deny_tools`'),
  'allowed-tools': () =>
    names('allowed-tools', 'tool names').nullish().describe('Reasonix form of `allow_tools`'),
  'read-only': () => flag('read-only').nullish().describe('deny every writer tool; readonly subagent tier'),
  subagent_tools: () =>
    z.enum(TIERS).nullish().describe('subagent tier; an unknown value is toolless, with a warning'),
  subagent_max_turns: () => turns('subagent_max_turns').nullish(),
  subagent_timeout_secs: () =>
    z
      .number({
        error: (issue) =>
          `invalid "subagent_timeout_secs" ${shown(issue.input)} (expected a number of seconds)`,
      })
      .nullish()
      .describe('clamped to 30..3600'),
  subagent_allow: () =>
    names('subagent_allow', 'tool names')
      .nullish()
      .describe('the subagent gets only these (within its tier)'),
  subagent_deny: () => names('subagent_deny', 'tool names').nullish(),
  subagent_mcp: () =>
    z
      .union([z.string(), z.array(z.string())], {
        error: () => '"subagent_mcp" must be "all" or a list of MCP tool names',
      })
      .nullish()
      .describe('`all` or the MCP tool names granted to a tooled subagent'),
  runAs: () =>
    z
      .literal('subagent', { error: (issue) => `invalid "runAs" ${shown(issue.input)} (expected subagent)` })
      .nullish()
      .describe('`subagent` makes a skill a profile'),
  invocation: () =>
    z
      .enum(['manual', 'auto'], {
        error: (issue) => `invalid "invocation" ${shown(issue.input)} (expected manual or auto)`,
      })
      .nullish(),
  color: () => text('color').nullish(),
  'max-steps': () => turns('max-steps').nullish().describe('same as `subagent_max_turns`'),
  permission: () =>
    z
      .object({
        allow: permissionList.optional(),
        ask: permissionList.optional(),
        deny: permissionList.optional(),
      })
      .strict()
      .nullish()
      .describe('allow/ask/deny rules while the profile is active (SPEC 6)'),
  skills: () =>
    names('skills', 'skill names')
      .nullish()
      .describe('skills force-loaded into the prompt (and a task child’s)'),
  instructions: () =>
    flag('instructions').nullish().describe('a task child of this profile gets AGENTS.md / CLAUDE.md'),
  permissionMode: () => text('permissionMode').nullish().describe('team field (SPEC 16)'),
  reviewer: () => flag('reviewer').nullish().describe('team field (SPEC 16)'),
  subagents: () => flag('subagents').nullish().describe('team field (SPEC 16)'),
};
type ProfileField = keyof typeof PROFILE_FIELDS;

function looseObjectOf<K extends ProfileField>(keys: readonly K[]) {
  const shape = {} as { [P in K]: ReturnType<(typeof PROFILE_FIELDS)[P]> };
  for (const key of keys) shape[key] = PROFILE_FIELDS[key]() as (typeof shape)[K];
  return z.looseObject(shape);
}

/** The whole schema, for the editors' JSON Schema and the config form; validation builds the keys it meets. */
export const ProfileFieldsSchema = lazySchema(() =>
  looseObjectOf(Object.keys(PROFILE_FIELDS) as ProfileField[]),
);

/** Every frontmatter key of SPEC 3.2, in the schema's order. */
export const PROFILE_KEYS: readonly string[] = Object.keys(PROFILE_FIELDS);

/**
 * Keys whose problems their own readers report: an unknown `subagent_tools` is a warning (treated as
 * toolless, SPEC 3.3), and a `permission` block is checked rule by rule with file lines (SPEC 6.8).
 */
const DELEGATED: ReadonlySet<string> = new Set(['subagent_tools', 'permission']);

/** The schemas of the key sets met so far: profiles of one run mostly share a few. */
const schemasByKeys = new Map<string, ReturnType<typeof looseObjectOf>>();

/**
 * The schema that validates `fields`: its known keys' schemas, in the whole schema's order, so every
 * issue is the whole schema's, in its order (unknown keys pass either way).
 */
export function fieldsSchemaFor(fields: Record<string, unknown>) {
  const keys = (PROFILE_KEYS as ProfileField[]).filter((key) => Object.hasOwn(fields, key));
  const id = keys.join('\n');
  let schema = schemasByKeys.get(id);
  if (!schema) {
    schema = looseObjectOf(keys);
    schemasByKeys.set(id, schema);
  }
  return schema;
}

/** The first problem of a profile's fields against the schema: the key and the message. */
export function profileFieldProblem(
  fields: Record<string, unknown>,
): { key: string; message: string } | undefined {
  const result = fieldsSchemaFor(fields).safeParse(fields);
  if (result.success) return undefined;
  const issue = result.error.issues.find((i) => !DELEGATED.has(String(i.path[0])));
  return issue && { key: String(issue.path[0]), message: issue.message };
}

/** The nested `subagent` block of the config form and the frontmatter key each entry stands for. */
export const SUBAGENT_BLOCK_KEYS = {
  tools: 'subagent_tools',
  max_turns: 'subagent_max_turns',
  timeout_secs: 'subagent_timeout_secs',
  allow: 'subagent_allow',
  deny: 'subagent_deny',
  mcp: 'subagent_mcp',
} as const;

/**
 * A profile in config form (`"agents": {"<name>": …}`): the same keys, `prompt` for the body (built for
 * the editors' JSON Schema only).
 */
export const ProfileConfigSchema = lazySchema(() => {
  const shape = ProfileFieldsSchema.shape;
  return ProfileFieldsSchema.omit({ name: true }).extend({
    prompt: z.string().optional().describe('the system prompt (the body of a profile file)'),
    subagent: z
      .object(
        Object.fromEntries(Object.entries(SUBAGENT_BLOCK_KEYS).map(([key, flat]) => [key, shape[flat]])) as {
          [K in keyof typeof SUBAGENT_BLOCK_KEYS]: (typeof shape)[(typeof SUBAGENT_BLOCK_KEYS)[K]];
        },
      )
      .strict()
      .optional()
      .describe('subagent settings: the `subagent_*` keys without their prefix'),
  });
});

/** The JSON Schema shipped as `schema/profile.schema.json` for editors of profile frontmatter. */
export function profileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ProfileFieldsSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://cadre.invalid/schema/profile.schema.json',
    title: 'cadre agent profile frontmatter (.cadre/agents/*.md, SPEC 3.2)',
  };
}
