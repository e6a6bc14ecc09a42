import { describe, expect, it } from 'vitest';
import { diffOfCall } from '../../../src/web/page/tools/diff-of-call.js';

describe('diffs drawn from file-changing tool calls', () => {
  it('edit: the old text against the new, with context', () => {
    const [file] =
      diffOfCall('edit', { path: 'a.ts', old_string: 'one\ntwo\nthree', new_string: 'one\n2\nthree' }) ?? [];
    expect(file.path).toBe('a.ts');
    expect(file.lines).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,3 @@' },
      { kind: 'ctx', text: 'one' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: '2' },
      { kind: 'ctx', text: 'three' },
    ]);
  });

  it('write: every line of the new content added', () => {
    expect(diffOfCall('write', { path: 'n.txt', content: 'a\nb' })).toEqual([
      {
        path: 'n.txt',
        lines: [
          { kind: 'add', text: 'a' },
          { kind: 'add', text: 'b' },
        ],
      },
    ]);
  });

  it('edit_lines: the range and its new lines', () => {
    expect(
      diffOfCall('edit_lines', { path: 'a', start_line: 2, end_line: 3, content: 'x\n' })?.[0].lines,
    ).toEqual([
      { kind: 'hunk', text: 'lines 2–3 (2 replaced) become:' },
      { kind: 'add', text: 'x' },
    ]);
  });

  it('apply_patch: one diff per file of the patch, a/ b/ prefixes dropped', () => {
    const patch = [
      '--- a/src/x.ts',
      '+++ b/src/x.ts',
      '@@ -1,2 +1,2 @@',
      ' keep',
      '-old',
      '+new',
      '--- /dev/null',
      '+++ b/new.ts',
      '@@ -0,0 +1 @@',
      '+created',
      '',
    ].join('\n');
    const files = diffOfCall('apply_patch', { patch }) ?? [];
    expect(files.map((f) => f.path)).toEqual(['src/x.ts', 'new.ts']);
    expect(files[0].lines.filter((l) => l.kind !== 'hunk')).toEqual([
      { kind: 'ctx', text: 'keep' },
      { kind: 'del', text: 'old' },
      { kind: 'add', text: 'new' },
    ]);
  });

  it.each([
    ['read', { path: 'a.ts' }],
    ['bash', { command: 'ls' }],
    ['edit', { path: 'a.ts' }],
    ['write', 'not an object'],
  ])('%s with %j changes no file it can show', (tool, input) => {
    expect(diffOfCall(tool, input)).toBeUndefined();
  });
});
