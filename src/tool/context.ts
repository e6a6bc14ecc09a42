import { realpathSync } from 'node:fs';
import { createShellJobs } from './shell-jobs.js';
import type { TodoItem, ToolContext } from './tool.js';

export function createTodoStore(initial: TodoItem[] = []): ToolContext['todos'] {
  let items = initial.map((item) => ({ ...item }));
  return {
    get: () => items.map((item) => ({ ...item })),
    set(next) {
      items = next.map((item) => ({ ...item }));
    },
  };
}

/**
 * A complete ToolContext from the parts a caller cares about: the root is resolved through symlinks,
 * the todo store is in memory, and the shell jobs are fresh (and run in the context's sandbox).
 */
export function createToolContext(partial: Partial<ToolContext> & Pick<ToolContext, 'root'>): ToolContext {
  return {
    signal: new AbortController().signal,
    agent: 'main',
    sessionId: 'local',
    todos: createTodoStore(),
    jobs: createShellJobs({ sandbox: partial.sandbox }),
    ...partial,
    root: realpathSync(partial.root),
  };
}
