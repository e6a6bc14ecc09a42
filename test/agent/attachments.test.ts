import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { attachmentCalls, mentionedFiles, withAttachments } from '../../src/agent/attachments.js';

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-attach-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'notes.md'), '# notes\n');
  return dir;
}

describe('mentionedFiles', () => {
  it.each([
    ['a path at the start', '@src/a.ts explain', ['src/a.ts']],
    [
      'a path after words, with trailing punctuation',
      'look at @src/a.ts, then @notes.md.',
      ['src/a.ts', 'notes.md'],
    ],
    ['each file once', '@notes.md and @notes.md again', ['notes.md']],
    ['a word that is no file stays text', 'ask @someone about @src/missing.ts', []],
    ['an @ inside a word is not a mention', 'mail me@notes.md', []],
    ['a directory is not attached', 'see @src', []],
  ])('%s', (_name, text, expected) => {
    expect(mentionedFiles(text, project())).toEqual(expected);
  });
});

describe('withAttachments', () => {
  it('adds each read file after the prompt, and says why a refused one is missing', () => {
    const [ok, refused] = attachmentCalls(['src/a.ts', '../secret.txt']);
    expect(ok.name).toBe('read');
    const text = withAttachments('explain', [
      { call: ok, result: { output: '1\texport const a = 1;' }, invalidInput: false },
      {
        call: refused,
        result: { output: 'Permission denied: outside the project', isError: true },
        invalidInput: false,
      },
    ]);
    expect(text).toBe(
      'explain\n\n<attachment path="src/a.ts">\n1\texport const a = 1;\n</attachment>\n\n' +
        '<attachment path="../secret.txt" status="not attached">\nPermission denied: outside the project\n</attachment>',
    );
  });

  it('leaves a prompt without attachments unchanged', () => {
    expect(withAttachments('plain', [])).toBe('plain');
  });
});
