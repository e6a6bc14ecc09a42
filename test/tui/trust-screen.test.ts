import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { PLAIN_THEME } from '../../src/tui/theme.js';
import { renderTrustScreen, type TrustQuestion, trustKey } from '../../src/tui/trust/trust-screen.js';

const QUESTION: TrustQuestion = {
  projectRoot: '/home/me/cloned',
  wouldRun: ['MCP server "db" (npx db-server --port 1) starts', '"sandbox" applies'],
  configFile: '/home/me/.config/cadre/config.json',
};
const NO = { upArrow: false, downArrow: false, return: false, escape: false, ctrl: false };

describe('trust screen', () => {
  it('lists exactly what would run and where trust is kept', () => {
    const text = renderTrustScreen(QUESTION, 0, 80, PLAIN_THEME).join('\n');
    expect(text).toContain('/home/me/cloned is not trusted');
    expect(text).toContain('* MCP server "db" (npx db-server --port 1) starts');
    expect(text).toContain('* "sandbox" applies');
    expect(text).toContain('/home/me/.config/cadre/config.json');
    expect(text).toContain('> 1. Trust this folder');
    expect(text).toContain('  2. Continue without trusting it');
  });

  it('fits the width', () => {
    for (const row of renderTrustScreen(QUESTION, 1, 60, PLAIN_THEME)) expect(stringWidth(row)).toBe(60);
  });

  it.each([
    ['1 trusts', '1', NO, { choice: 'trust' }],
    ['2 continues without trust', '2', NO, { choice: 'continue' }],
    ['Enter takes the selection', '', { ...NO, return: true }, { choice: 'trust' }],
    ['Esc quits', '', { ...NO, escape: true }, { choice: 'quit' }],
    ['Ctrl+C quits', 'c', { ...NO, ctrl: true }, { choice: 'quit' }],
    ['Down moves the selection', '', { ...NO, downArrow: true }, { selected: 1 }],
    ['another key changes nothing', 'x', NO, { selected: 0 }],
  ])('%s', (_name, input, key, result) => {
    expect(trustKey(0, input, key)).toEqual(result);
  });
});
