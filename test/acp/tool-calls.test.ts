import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replayUpdates } from '../../src/acp/replay.js';
import { promptText } from '../../src/acp/session.js';
import {
  appliedDiffs,
  proposedContent,
  snapshotFiles,
  toolKind,
  toolLocations,
  toolTitle,
} from '../../src/acp/tool-calls.js';
import { makeProject } from '../support/cli.js';

function project() {
  const p = makeProject({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
  onTestFinished(() => p.cleanup());
  return { ...p, root: realpathSync(p.dir) };
}

describe('ACP tool calls', () => {
  it.each([
    ['read', 'read'],
    ['grep', 'search'],
    ['find_files', 'search'],
    ['write', 'edit'],
    ['apply_patch', 'edit'],
    ['bash', 'execute'],
    ['webfetch', 'fetch'],
    ['write_todo_list', 'think'],
    ['plan_exit', 'switch_mode'],
    ['task', 'other'],
    ['mcp__fs__read', 'other'],
  ])('%s is drawn as %s', (tool, kind) => {
    expect(toolKind(tool)).toBe(kind);
  });

  it('titles a subagent’s call with its chain', () => {
    expect(toolTitle('bash', { command: 'npm test' }, 'main')).toBe('bash npm test');
    expect(toolTitle('read', { path: 'a.txt' }, 'main › researcher')).toBe('main › researcher: read a.txt');
  });

  it('locates path calls at absolute paths, with the line where the call names one', () => {
    const p = project();
    expect(toolLocations('read', { path: 'a.txt', offset: 2 }, p.root)).toEqual([
      { path: join(p.root, 'a.txt'), line: 2 },
    ]);
    expect(toolLocations('bash', { command: 'ls' }, p.root)).toEqual([]);
  });

  it('proposes the change before a write runs and reports the real diff after it ran', () => {
    const p = project();
    const file = join(p.root, 'a.txt');
    expect(proposedContent('edit', { path: 'a.txt', old_string: 'two', new_string: '2' }, p.root)).toEqual([
      { type: 'diff', path: file, oldText: 'two', newText: '2' },
    ]);
    expect(
      proposedContent('edit_lines', { path: 'a.txt', start_line: 2, end_line: 3, content: 'x' }, p.root),
    ).toEqual([{ type: 'diff', path: file, oldText: 'two\nthree', newText: 'x' }]);
    expect(proposedContent('write', { path: 'new.txt', content: 'fresh' }, p.root)).toEqual([
      { type: 'diff', path: join(p.root, 'new.txt'), oldText: null, newText: 'fresh' },
    ]);
    const before = snapshotFiles('write', { path: 'a.txt', content: 'ONE\n' }, p.root);
    writeFileSync(file, 'ONE\n');
    expect(appliedDiffs('write', before, p.root)).toEqual([
      { type: 'diff', path: file, oldText: 'one\ntwo\nthree\n', newText: 'ONE\n' },
    ]);
    expect(snapshotFiles('read', { path: 'a.txt' }, p.root).size).toBe(0);
  });

  it('an apply_patch shows its patch before it runs and each file it touched, created or deleted, after', () => {
    const p = project();
    writeFileSync(join(p.root, 'gone.txt'), 'bye\n');
    const patch = [
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+2',
      ' three',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1 @@',
      '+fresh',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    expect(proposedContent('apply_patch', { patch }, p.root)).toEqual([
      { type: 'content', content: { type: 'text', text: `\`\`\`diff\n${patch}\n\`\`\`` } },
    ]);
    const before = snapshotFiles('apply_patch', { patch }, p.root);
    writeFileSync(join(p.root, 'a.txt'), 'one\n2\nthree\n');
    writeFileSync(join(p.root, 'new.txt'), 'fresh\n');
    rmSync(join(p.root, 'gone.txt'));
    expect(appliedDiffs('apply_patch', before, p.root)).toEqual([
      { type: 'diff', path: join(p.root, 'a.txt'), oldText: 'one\ntwo\nthree\n', newText: 'one\n2\nthree\n' },
      { type: 'diff', path: join(p.root, 'new.txt'), oldText: null, newText: 'fresh\n' },
      { type: 'diff', path: join(p.root, 'gone.txt'), oldText: 'bye\n', newText: '' },
    ]);
  });

  it('never copies a file outside the project into a diff', () => {
    const p = project();
    expect(proposedContent('write', { path: '/etc/hostname', content: 'x' }, p.root)).toEqual([
      { type: 'diff', path: '/etc/hostname', oldText: null, newText: 'x' },
    ]);
  });
});

describe('ACP prompts and replay', () => {
  it('turns content blocks into one prompt text and refuses what it does not accept', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'look at' },
      { type: 'resource', resource: { uri: 'file:///p/a.ts', text: 'const a = 1;' } },
      { type: 'resource_link', uri: 'file:///p/b.ts', name: 'b.ts' },
    ];
    expect(promptText(blocks)).toBe(
      'look at\n<file uri="file:///p/a.ts">\nconst a = 1;\n</file>\n@file:///p/b.ts',
    );
    expect(() => promptText([{ type: 'image', data: '', mimeType: 'image/png' }])).toThrow(/image/);
  });

  it('replays a stored conversation as message chunks and finished tool calls', () => {
    const updates = replayUpdates([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'reading' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read',
            output: { type: 'error-text', value: 'nope' },
          },
        ],
      },
      { role: 'assistant', content: 'done' },
    ]);
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(updates[4]).toMatchObject({ toolCallId: 'main:c1', status: 'failed' });
  });
});
