import { describe, expect, it } from 'vitest';
import { closeMatches, editDistance } from '../../src/util/close-matches.js';

describe('editDistance', () => {
  it.each([
    ['agent', 'agent', 0],
    ['agnet', 'agent', 1],
    ['agen', 'agent', 1],
    ['agentx', 'agent', 1],
    ['aegnt', 'agent', 1],
    ['gaetn', 'agent', 2],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%s → %s is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe('closeMatches', () => {
  const names = ['agent', 'agents', 'help', 'tasks', 'kill', 'review', 'reviewer'];
  it.each([
    ['agnet', ['agent', 'agents']],
    ['hlep', ['help']],
    ['revie', ['review', 'reviewer']],
    ['ta', ['tasks']],
    ['etc', []],
    ['tmp', []],
    ['xyzzy', []],
  ])('%s suggests %j', (word, expected) => {
    expect(closeMatches(word, names)).toEqual(expected);
  });
});
