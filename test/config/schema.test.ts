import { describe, expect, it } from 'vitest';
import { configSchema, configSchemaFor } from '../../src/config/schema.js';

/** Config files as users write them, good and bad: each key's schema is built only when a file has it. */
const CONFIGS: [string, Record<string, unknown>][] = [
  ['an empty file', {}],
  ['a provider and its alias', { providers: { a: { type: 'openai', model: 'm' } }, provider: 'a' }],
  ['an unknown top-level key', { provider: 'a', providres: {} }],
  ['two unknown keys and a bad known one', { zzz: 1, provider: '', aaa: 2 }],
  ['a bad provider entry', { providers: { a: { type: 'openai', extra: true } } }],
  ['a provider missing its base_url', { providers: { a: { type: 'openai-compatible' } } }],
  ['bad values in several keys', { workers: { backend: 'cloud' }, sandbox: 'maybe', model: 3 }],
  ['a bad MCP server', { mcp_servers: { s: { command: '' } } }],
  ['a concurrency out of range', { max_subagent_concurrency: 99, max_parallel_writers: 0 }],
  ['lists with empty entries', { sandbox_hide: [''], trusted_roots: ['/x', ''] }],
  ['null where a role may be null', { subagent_provider: null, critic_provider: 'c' }],
  ['a wrong permission block', { permission: { allow: 'git *' } }],
];

describe('config schema built for the keys present', () => {
  it.each(CONFIGS)('validates %s exactly as the whole schema', (_, value) => {
    const whole = configSchema().safeParse(value);
    const partial = configSchemaFor(value).safeParse(value, { jitless: true });
    expect(partial.success).toBe(whole.success);
    expect(partial.error?.issues).toEqual(whole.error?.issues);
    expect(partial.data).toEqual(whole.data);
  });
});
