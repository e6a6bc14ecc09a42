import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as E from '../../../src/tui/input/editor.js';
import { renderEditor } from '../../../src/tui/input/editor-view.js';
import { historyFile, PromptHistory } from '../../../src/tui/input/history.js';
import { PLAIN_THEME } from '../../../src/tui/theme.js';

/** `|` marks the cursor in these tables. */
function at(marked: string): E.EditorState {
  const cursor = marked.indexOf('|');
  return { text: marked.replace('|', ''), cursor };
}
function show(state: E.EditorState | null): string | null {
  return state === null ? null : `${state.text.slice(0, state.cursor)}|${state.text.slice(state.cursor)}`;
}

describe('editor operations', () => {
  const cases: [string, (s: E.EditorState) => E.EditorState | null, string, string | null][] = [
    ['insert types at the cursor', (s) => E.insert(s, 'X'), 'ab|c', 'abX|c'],
    [
      'a paste keeps its lines as one input',
      (s) => E.insert(s, 'one\r\ntwo\rthree'),
      '|',
      'one\ntwo\nthree|',
    ],
    ['control characters are dropped from a paste', (s) => E.insert(s, 'a\u0007b\u001bc'), '|', 'abc|'],
    ['backspace removes the character before', E.backspace, 'ab|c', 'a|c'],
    ['backspace at the start does nothing', E.backspace, '|abc', '|abc'],
    ['backspace removes a whole emoji', E.backspace, 'a😀|', 'a|'],
    ['delete removes the character after', E.deleteForward, 'a|bc', 'a|c'],
    ['left steps over an emoji', E.moveLeft, 'a😀|', 'a|😀'],
    ['right stops at the end', E.moveRight, 'ab|', 'ab|'],
    ['home goes to the start of the line', E.moveHome, 'one\ntw|o', 'one\n|two'],
    ['end goes to the end of the line', E.moveEnd, 'o|ne\ntwo', 'one|\ntwo'],
    ['up keeps the column', E.moveUp, 'abcd\nab|', 'ab|cd\nab'],
    ['up clamps to a shorter line', E.moveUp, 'a\nabc|', 'a|\nabc'],
    ['up on the first line gives way to history', E.moveUp, 'ab|c', null],
    ['down keeps the column', E.moveDown, 'a|bc\nxyz', 'abc\nx|yz'],
    ['down on the last line gives way to history', E.moveDown, 'abc\nx|y', null],
    ['word left skips spaces then the word', E.moveWordLeft, 'one two  |', 'one |two  '],
    ['word right ends after the word', E.moveWordRight, '|one two', 'one| two'],
    ['ctrl+w deletes the word before', E.deleteWordBefore, 'git commit|', 'git |'],
    ['ctrl+u deletes to the line start', E.deleteToLineStart, 'a\nbc|d', 'a\n|d'],
    ['ctrl+k deletes to the line end', E.deleteToLineEnd, 'a|bc\nd', 'a|\nd'],
    ['ctrl+k at a line end joins the next line', E.deleteToLineEnd, 'a|\nd', 'a|d'],
  ];
  it.each(cases)('%s', (_name, op, before, after) => {
    expect(show(op(at(before)))).toBe(after);
  });

  it('Enter sends the text', () => {
    expect(E.enter(at('fix the bug|'))).toEqual({ submit: 'fix the bug' });
  });

  it('Enter after a backslash starts a new line instead of sending', () => {
    const result = E.enter(at('first\\|'));
    expect('state' in result && show(result.state)).toBe('first\n|');
  });

  it('finds and replaces the word being completed', () => {
    const state = at('look at @src/ma| please');
    expect(E.wordAtCursor(state)).toEqual({ start: 8, word: '@src/ma' });
    expect(show(E.replaceWord(state, '@src/main.ts '))).toBe('look at @src/main.ts | please');
  });
});

describe('renderEditor', () => {
  it('draws the prompt, the text and the cursor in reverse video', () => {
    expect(renderEditor(at('ab|c'), 40, PLAIN_THEME)).toEqual(['> ab\u001b[7mc\u001b[27m']);
  });

  it('indents continuation lines and draws the cursor at the end of the text', () => {
    expect(renderEditor(at('one\ntwo|'), 40, PLAIN_THEME)).toEqual(['> one', '  two\u001b[7m \u001b[27m']);
  });

  it('wraps a long line within the width', () => {
    const rows = renderEditor(E.editorWith('x'.repeat(100)), 30, PLAIN_THEME);
    expect(rows.length).toBe(4);
    for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(30);
  });

  it('shows a placeholder when empty', () => {
    expect(renderEditor(E.EMPTY_EDITOR, 40, PLAIN_THEME, { placeholder: 'Ask anything' })).toEqual([
      '> \u001b[7m \u001b[27mAsk anything',
    ]);
  });
});

describe('PromptHistory', () => {
  function tempFile(): string {
    const dir = mkdtempSync(join(tmpdir(), 'cadre-history-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return historyFile(dir, '/some/project');
  }

  it('walks back through entries, then forward to the draft', () => {
    const history = PromptHistory.inMemory(['one', 'two']);
    expect(history.previous('draft')).toBe('two');
    expect(history.previous('two')).toBe('one');
    expect(history.previous('one')).toBeNull();
    expect(history.next()).toBe('two');
    expect(history.next()).toBe('draft');
    expect(history.next()).toBeNull();
  });

  it('skips an immediate repeat and blank prompts', () => {
    const history = PromptHistory.inMemory();
    for (const text of ['a', 'a', '  ', 'b']) history.add(text);
    expect(history.all).toEqual(['a', 'b']);
  });

  it('persists per project and survives a torn line', () => {
    const file = tempFile();
    const first = PromptHistory.open(file);
    first.add('multi\nline prompt');
    first.add('second');
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"torn`);
    const reopened = PromptHistory.open(file);
    expect(reopened.all).toEqual(['multi\nline prompt', 'second']);
    reopened.add('third');
    expect(PromptHistory.open(file).all).toEqual(['multi\nline prompt', 'second', 'third']);
  });

  it('keeps different projects apart', () => {
    expect(historyFile('/cfg', '/a')).not.toBe(historyFile('/cfg', '/b'));
  });
});
