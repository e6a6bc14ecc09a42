import type { Key } from 'ink';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  type AskModalState,
  type AskView,
  askModalKey,
  exactCall,
  INITIAL_ASK_STATE,
  initialAskState,
  renderAskModal,
} from '../../../src/tui/ask/ask-modal.js';
import { PLAIN_THEME } from '../../../src/tui/theme.js';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const key = (k: Partial<Key> = {}): Key => ({ ...NO_KEY, ...k });

const PERMISSION: AskView = {
  id: 'ask-1',
  label: 'main > writer',
  kind: 'permission',
  permission: {
    tool: 'bash',
    input: { command: 'git push origin main' },
    suggestedRule: 'bash(git push *)',
    decision: {
      reason: 'ask: no rule allows bash(git push origin main)',
      trace: [
        { layer: 'safety floor', note: 'full: no restriction' },
        {
          layer: 'global config',
          action: 'ask',
          rule: 'bash(git push *)',
          source: 'config.json:4',
          note: 'matched',
        },
      ],
    },
  },
};

/** Presses keys in order; returns the final state or the answer given. */
function press(ask: AskView, keys: [string, Partial<Key>?][], start: AskModalState = INITIAL_ASK_STATE) {
  let state = start;
  for (const [input, k] of keys) {
    const result = askModalKey(ask, state, input, key(k));
    if ('answer' in result) return result.answer;
    state = result.state;
  }
  return state;
}

describe('ask modal keys', () => {
  it.each([
    ['1 allows once', [['1']], { kind: 'allow_once' }],
    ['2 always allows', [['2']], { kind: 'always' }],
    ['3 denies', [['3']], { kind: 'deny' }],
    ['Esc denies', [['', { escape: true }]], { kind: 'deny' }],
    ['Enter takes the first choice', [['', { return: true }]], { kind: 'allow_once' }],
    [
      'arrows move the selection',
      [
        ['', { downArrow: true }],
        ['', { downArrow: true }],
        ['', { return: true }],
      ],
      { kind: 'deny' },
    ],
    [
      'up from the top wraps to the last',
      [
        ['', { upArrow: true }],
        ['', { upArrow: true }],
        ['', { return: true }],
      ],
      { kind: 'deny' },
    ],
    [
      '4 then a message denies with it',
      [['4'], ['use '], ['rebase'], ['', { return: true }]],
      { kind: 'deny_feedback', feedback: 'use rebase' },
    ],
  ] as [string, [string, Partial<Key>?][], unknown][])('%s', (_name, keys, answer) => {
    expect(press(PERMISSION, keys)).toEqual(answer);
  });

  it('an empty message is not sent', () => {
    const state = press(PERMISSION, [['4'], ['', { return: true }]]);
    expect(state).toMatchObject({ typing: { editor: { text: '' } } });
  });

  it('Esc while typing a message goes back to the choices', () => {
    expect(press(PERMISSION, [['4'], ['x'], ['', { escape: true }]])).toMatchObject({ typing: null });
  });

  it('t toggles the decision trace', () => {
    expect(press(PERMISSION, [['t']])).toMatchObject({ showTrace: true });
    expect(press(PERMISSION, [['t'], ['t']])).toMatchObject({ showTrace: false });
  });

  it('a question with options answers with the option picked', () => {
    const ask: AskView = {
      id: 'q',
      label: 'main',
      kind: 'question',
      question: 'Which db?',
      options: ['sqlite', 'redis'],
    };
    expect(press(ask, [['2']])).toEqual({ kind: 'answer', text: 'redis' });
    expect(press(ask, [['3'], ['postgres'], ['', { return: true }]])).toEqual({
      kind: 'answer',
      text: 'postgres',
    });
  });

  it('a question without options is typed straight away, and Esc denies it', () => {
    const ask: AskView = { id: 'q', label: 'main', kind: 'question', question: 'Name?' };
    const start = initialAskState(ask);
    expect(press(ask, [['cadre'], ['', { return: true }]], start)).toEqual({ kind: 'answer', text: 'cadre' });
    expect(press(ask, [['', { escape: true }]], start)).toEqual({ kind: 'deny' });
  });

  it('a plan is approved with 1 and refused with 2', () => {
    const ask: AskView = { id: 'p', label: 'main', kind: 'plan', plan: '1. read\n2. edit' };
    expect(press(ask, [['1']])).toEqual({ kind: 'allow_once' });
    expect(press(ask, [['2']])).toEqual({ kind: 'deny' });
  });
});

describe('ask modal view', () => {
  it('shows the chain label, the exact call, the reason and the four numbered choices', () => {
    const rows = renderAskModal(PERMISSION, INITIAL_ASK_STATE, 80, PLAIN_THEME);
    const text = rows.join('\n');
    expect(rows[0]).toContain('Permission | main > writer');
    expect(text).toContain('bash(git push origin main)');
    expect(text).toContain('ask: no rule allows');
    expect(text).toContain('> 1. Allow once');
    expect(text).toContain('  2. Always allow bash(git push *) (this session)');
    expect(text).toContain('  3. Deny');
    expect(text).toContain('  4. Deny and tell the model why');
    expect(text).not.toContain('Decision trace');
  });

  it('shows the decision trace when asked', () => {
    const text = renderAskModal(PERMISSION, { ...INITIAL_ASK_STATE, showTrace: true }, 80, PLAIN_THEME).join(
      '\n',
    );
    expect(text).toContain('Decision trace');
    expect(text).toContain('global config  ask    bash(git push *) (config.json:4) matched');
    expect(text).toContain('safety floor          full: no restriction');
  });

  it('previews the diff of an edit it asks about', () => {
    const edit: AskView = {
      ...PERMISSION,
      kind: 'permission',
      permission: {
        ...(PERMISSION as Extract<AskView, { kind: 'permission' }>).permission,
        tool: 'edit',
        input: { path: 'a.ts', old_string: 'x', new_string: 'y' },
      },
    };
    const text = renderAskModal(edit, INITIAL_ASK_STATE, 80, PLAIN_THEME).join('\n');
    expect(text).toContain('edit(a.ts)');
    expect(text).toContain('-x');
    expect(text).toContain('+y');
  });

  it('fits an 80x24 terminal: no row wider, no more rows than allowed', () => {
    const huge: AskView = {
      ...PERMISSION,
      kind: 'permission',
      permission: {
        ...(PERMISSION as Extract<AskView, { kind: 'permission' }>).permission,
        tool: 'write',
        input: { path: 'big.txt', content: 'line\n'.repeat(200) },
      },
    };
    const rows = renderAskModal(huge, INITIAL_ASK_STATE, 80, PLAIN_THEME, 18);
    expect(rows.length).toBeLessThanOrEqual(18);
    for (const row of rows) expect(stringWidth(row)).toBe(80);
  });

  it.each([
    ['bash', { command: 'ls -la' }, 'bash(ls -la)'],
    ['read', { path: 'src/a.ts' }, 'read(src/a.ts)'],
    ['webfetch', { url: 'https://x.dev' }, 'webfetch(https://x.dev)'],
    ['mcp__db__query', { sql: 'select 1' }, 'mcp__db__query({"sql":"select 1"})'],
  ])('writes %s calls as explain takes them', (tool, input, call) => {
    expect(exactCall(tool, input)).toBe(call);
  });
});
