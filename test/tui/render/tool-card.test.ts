import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { callDiffText, editDiffText, renderUnifiedDiff } from '../../../src/tui/render/diff.js';
import { renderToolCard, type ToolCardView } from '../../../src/tui/render/tool-card.js';
import { createTheme, PLAIN_THEME } from '../../../src/tui/theme.js';

const COLOR = createTheme({ colorLevel: 1, unicode: true });

function card(overrides: Partial<ToolCardView>): ToolCardView {
  return {
    number: 3,
    title: 'bash npm test',
    tool: 'bash',
    input: { command: 'npm test' },
    status: 'ok',
    ...overrides,
  };
}

describe('diffs', () => {
  it('shows an edit as a hunk of removed and added lines with context', () => {
    const text = editDiffText('a\nb\nc\n', 'a\nB\nc\n');
    expect(text.split('\n')).toEqual([' a', '-b', '+B', ' c']);
  });

  it('parts distant hunks of an edit without inventing line numbers', () => {
    const before = 'a\n1\n2\n3\n4\n5\n6\nb\n';
    const text = editDiffText(before, before.replace('a', 'A').replace('b', 'B'), 1);
    expect(text.split('\n')).toEqual(['-a', '+A', ' 1', '@@', ' 6', '-b', '+B']);
  });

  it('takes the diff of edit, apply_patch and write calls and nothing else', () => {
    expect(callDiffText('edit', { path: 'x', old_string: 'old', new_string: 'new' })).toBe('-old\n+new');
    expect(callDiffText('apply_patch', { patch: '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' })).toContain('+b');
    expect(callDiffText('write', { path: 'n.txt', content: 'one\ntwo\n' })).toBe('+one\n+two');
    expect(callDiffText('read', { path: 'x' })).toBeNull();
    expect(callDiffText('edit', { path: 'x' })).toBeNull();
  });

  it('colours additions green and deletions red', () => {
    const [header, removed, added] = renderUnifiedDiff('@@ -1 +1 @@\n-old\n+new', 80, COLOR);
    expect(header).toBe('\u001b[36m@@ -1 +1 @@\u001b[39m');
    expect(removed).toBe('\u001b[31m-old\u001b[39m');
    expect(added).toBe('\u001b[32m+new\u001b[39m');
  });
});

describe('renderToolCard', () => {
  it('prints the call on one line with the tool marker', () => {
    expect(renderToolCard(card({ output: 'ok' }), 80, PLAIN_THEME)).toEqual(['> bash npm test', '  | ok']);
  });

  it('collapses a long result and says how to expand it', () => {
    const output = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const lines = renderToolCard(card({ output }), 80, PLAIN_THEME);
    expect(lines).toHaveLength(6);
    expect(lines[4]).toBe('  | line 4');
    expect(lines[5]).toBe('  | ... +26 lines (ctrl+o or /expand 3)');
  });

  it('shows every line when expanded', () => {
    const output = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    expect(renderToolCard(card({ output }), 80, PLAIN_THEME, { expanded: true })).toHaveLength(31);
  });

  it('shows a successful edit as its diff', () => {
    const edit = card({
      title: 'edit src/a.ts',
      tool: 'edit',
      input: { path: 'src/a.ts', old_string: 'return 1;', new_string: 'return 2;' },
      output: 'edited src/a.ts',
    });
    expect(renderToolCard(edit, 80, PLAIN_THEME)).toEqual([
      '> edit src/a.ts',
      '  | -return 1;',
      '  | +return 2;',
    ]);
  });

  it('shows a failed edit as its error, not its diff', () => {
    const edit = card({
      title: 'edit src/a.ts',
      tool: 'edit',
      input: { path: 'src/a.ts', old_string: 'x', new_string: 'y' },
      status: 'error',
      output: 'old_string not found',
    });
    expect(renderToolCard(edit, 80, PLAIN_THEME)).toEqual(['> edit src/a.ts', '  | old_string not found']);
  });

  it('summarises a read by its line count', () => {
    const read = card({
      title: 'read README.md',
      tool: 'read',
      input: { path: 'README.md' },
      output: 'a\nb\nc\n',
    });
    expect(renderToolCard(read, 80, PLAIN_THEME)).toEqual(['> read README.md', '  | 3 lines']);
  });

  it('labels a subagent call and its duration', () => {
    const lines = renderToolCard(card({ label: 'main > writer', durationMs: 2500 }), 80, PLAIN_THEME);
    expect(lines[0]).toBe('> [main > writer] bash npm test 2.5s');
  });

  it('never prints a row wider than the terminal', () => {
    const lines = renderToolCard(
      card({ title: `bash ${'x'.repeat(200)}`, output: 'y'.repeat(500) }),
      40,
      COLOR,
      { expanded: true },
    );
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
  });
});
