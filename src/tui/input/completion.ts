import { type EditorState, replaceWord, wordAtCursor } from './editor.js';
import { rankPaths } from './file-index.js';

/** Where completions come from: the controller's slash table and completer, and the project's files. */
export interface CompletionSource {
  /** Full-line completions of a line starting with `/` (command names, then their arguments). */
  complete(line: string): string[];
  commands(): readonly { name: string; summary: string; args: string }[];
  /** The project's files when listed; null while the listing is still being made. */
  files(): readonly string[] | null;
}

export interface Completion {
  kind: 'slash' | 'file';
  /** What the menu shows and what is put in. */
  value: string;
  detail: string;
}

const MAX_ITEMS = 50;

/**
 * The completions for what is being typed: a slash command line (names with their one-line summary, then the
 * command's arguments such as profile names), or an `@path` word (project files).
 */
export function completionsFor(editor: EditorState, source: CompletionSource): Completion[] {
  const before = editor.text.slice(0, editor.cursor);
  if (before.startsWith('/') && !before.includes('\n')) {
    const commands = new Map(source.commands().map((c) => [c.name, c]));
    return source
      .complete(before)
      .slice(0, MAX_ITEMS)
      .filter((value) => value !== before.trimEnd())
      .map((value) => {
        const command = /^\/(\S+)$/.test(value) ? commands.get(value.slice(1)) : undefined;
        const detail = command ? `${command.args ? `${command.args}  ` : ''}${command.summary}` : '';
        return { kind: 'slash', value, detail };
      });
  }
  const { word } = wordAtCursor(editor);
  if (word.startsWith('@')) {
    const files = source.files();
    if (files === null) return [];
    // A word that already names a file is finished: Enter then sends instead of picking.
    if (files.includes(word.slice(1))) return [];
    return rankPaths(files, word.slice(1), MAX_ITEMS).map((path) => ({
      kind: 'file',
      value: `@${path}`,
      detail: '',
    }));
  }
  return [];
}

/** The editor after taking a completion: the line or word replaced, a space after a finished name. */
export function acceptCompletion(editor: EditorState, completion: Completion): EditorState {
  if (completion.kind === 'file') return replaceWord(editor, `${completion.value} `);
  const rest = editor.text.slice(editor.cursor);
  const text = `${completion.value} ${rest.trimStart()}`;
  return { text, cursor: completion.value.length + 1 };
}
