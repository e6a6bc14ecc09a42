import { describe, expect, it } from 'vitest';
import { firstCommandWords } from '../../src/permission/shell-lexer.js';

describe('firstCommandWords', () => {
  it.each<[string, { assignments: string[]; words: string[] }]>([
    ['git checkout main', { assignments: [], words: ['git', 'checkout', 'main'] }],
    [`gi't' "di ff" a\\ b`, { assignments: [], words: ['git', 'di ff', 'a b'] }],
    ['FOO=1 npm test && rm x', { assignments: ['FOO=1'], words: ['npm', 'test'] }],
    ['A=1; ls -la', { assignments: [], words: ['ls', '-la'] }],
    ['(cd src)|wc', { assignments: [], words: ['cd', 'src'] }],
    ['echo hi>out', { assignments: [], words: ['echo', 'hi'] }],
    ['  ', { assignments: [], words: [] }],
  ])('splits %j', (source, expected) => {
    expect(firstCommandWords(source)).toEqual(expected);
  });
});
