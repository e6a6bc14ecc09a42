import { describe, expect, it } from 'vitest';
import { setOverride } from '../../../src/profile/manage/config-overrides.js';

const COMMENTED = [
  '{',
  '  // providers come first',
  '  "provider": "main", // the main loop',
  '  "subagent_models": { "review": "haiku" }',
  '}',
  '',
].join('\n');

describe('setOverride', () => {
  it('adds a key to an existing map and keeps comments and the rest of the file', () => {
    const result = setOverride(COMMENTED, 'subagent_models', 'explore', 'sonnet');
    expect(result).toContain('// providers come first');
    expect(result).toContain('"provider": "main", // the main loop');
    expect(result).toMatch(/"review": "haiku",\s+"explore": "sonnet"/);
  });

  it('creates the map when it is missing', () => {
    const result = setOverride(COMMENTED, 'subagent_efforts', 'review', 'high');
    expect(result).toContain('// providers come first');
    expect(result).toMatch(/"subagent_efforts": \{\s+"review": "high"\s+\}/);
  });

  it('removes the key on clearing, leaving an empty map and the comments', () => {
    const result = setOverride(COMMENTED, 'subagent_models', 'review', undefined);
    expect(result).toBe(COMMENTED.replace('{ "review": "haiku" }', '{}'));
  });

  it('changes nothing when the key to clear is absent', () => {
    expect(setOverride(COMMENTED, 'subagent_efforts', 'review', undefined)).toBe(COMMENTED);
    expect(setOverride('', 'subagent_efforts', 'review', undefined)).toBe('');
  });

  it('starts a new file from nothing', () => {
    expect(JSON.parse(setOverride('', 'subagent_models', 'review', 'haiku'))).toEqual({
      subagent_models: { review: 'haiku' },
    });
  });

  it('follows the file indentation (tabs)', () => {
    expect(setOverride('{\n\t"a": 1\n}\n', 'subagent_models', 'review', 'x')).toBe(
      '{\n\t"a": 1,\n\t"subagent_models": {\n\t\t"review": "x"\n\t}\n}\n',
    );
  });
});
