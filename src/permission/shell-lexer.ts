/**
 * The words of the first simple command, split synchronously.
 *
 * Permission decisions use the tree-sitter walk (shell-tree.ts), which loads asynchronously. The rule
 * suggested on an ask (suggest.ts) is computed synchronously and is only a proposal the user reviews,
 * so this splitter resolves quotes and stops at the first operator without following anything else.
 */

export interface FirstCommand {
  assignments: string[];
  words: string[];
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const OPERATOR_CHARS = ';&|()<>\n';

/** The first command of `source` that has a word, with the assignments in front of it. */
export function firstCommandWords(source: string): FirstCommand {
  let command: FirstCommand = { assignments: [], words: [] };
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (!inWord) return;
    if (command.words.length === 0 && ASSIGNMENT.test(word)) command.assignments.push(word);
    else command.words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === ' ' || c === '\t') endWord();
    else if (OPERATOR_CHARS.includes(c)) {
      endWord();
      if (command.words.length > 0) return command;
      command = { assignments: [], words: [] };
    } else if (c === "'" || c === '"') {
      const end = source.indexOf(c, i + 1);
      const stop = end === -1 ? source.length : end;
      word += source.slice(i + 1, stop);
      inWord = true;
      i = stop;
    } else if (c === '\\') {
      word += source[i + 1] ?? '';
      inWord = true;
      i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  return command;
}
