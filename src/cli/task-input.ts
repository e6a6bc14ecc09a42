import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

/** What to tell the user when a command that runs a task got none. */
export interface TaskHints {
  /** The words given were all blank. */
  empty: string;
  /** No words and standard input is a terminal. */
  missing: string;
}

/** The task: the words given on the command line, else (none, or `-`) standard input. */
export function readTask(words: readonly string[], hints: TaskHints): string {
  if (words.length > 0 && !(words.length === 1 && words[0] === '-')) {
    const task = words.join(' ');
    if (task.trim() === '') throw new UsageError(hints.empty);
    return task;
  }
  if (process.stdin.isTTY) throw new UsageError(hints.missing);
  const task = readFileSync(0, 'utf8').trim();
  if (!task) throw new UsageError('no task: standard input was empty');
  return task;
}
