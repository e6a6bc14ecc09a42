import { describe, expect, it } from 'vitest';
import { fieldsSchemaFor, ProfileFieldsSchema } from '../../src/profile/schema.js';

/** Frontmatter as written, good and bad: each key's schema is built only when a profile has the key. */
const FIELDS: [string, Record<string, unknown>][] = [
  ['no keys', {}],
  ['a typical profile', { name: 'rev', description: 'reviews', model: 'fast', tools: ['read', 'grep'] }],
  ['Claude Code keys', { 'allowed-tools': 'Read, Grep', color: 'blue', permissionMode: 'plan' }],
  ['an unknown key beside known ones', { description: 'd', colour: 'red', effort: 'high' }],
  ['a bad effort', { effort: 'extreme' }],
  ['bad values in several keys', { temperature: 3, 'max-steps': 0, reviewer: 'yes' }],
  ['a bad subagent block', { subagent_max_turns: 1.5, subagent_tools: 7, subagent_mcp: 'x' }],
  ['a bad permission block', { permission: { allow: 'git *', other: [] } }],
  ['nulls for unset keys', { model: null, tools: null, skills: null }],
  ['keys given in another order', { skills: ['a'], name: 'n', instructions: 'no', description: 5 }],
];

describe('profile fields schema built for the keys present', () => {
  it.each(FIELDS)('validates %s exactly as the whole schema', (_, fields) => {
    const whole = ProfileFieldsSchema.safeParse(fields);
    const partial = fieldsSchemaFor(fields).safeParse(fields);
    expect(partial.success).toBe(whole.success);
    expect(partial.error?.issues).toEqual(whole.error?.issues);
    expect(partial.data).toEqual(whole.data);
  });

  it('builds one schema per set of keys', () => {
    expect(fieldsSchemaFor({ name: 'a', model: 'm' })).toBe(fieldsSchemaFor({ model: 'n', name: 'b' }));
  });
});
