import { createApplyPatchTool } from './apply-patch.js';
import { bashTool } from './bash.js';
import { bashOutputTool } from './bash-output.js';
import { createEditTool } from './edit.js';
import { createEditLinesTool } from './edit-lines.js';
import { createFindFilesTool, createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { killShellTool } from './kill-shell.js';
import { createListDirTool } from './list-dir.js';
import { createReadTool } from './read.js';
import { createRepoOverviewTool } from './repo-overview.js';
import type { AnyTool } from './tool.js';
import { createWebfetchTool } from './webfetch.js';
import { createWriteTool } from './write.js';
import { writeTodoListTool } from './write-todo-list.js';

/**
 * The built-in tools implemented here, bound to a project root: path tools resolve their inputs (for
 * `subject()` and `execute()` alike) against it, so an isolated writer's registry is rooted at its
 * worktree. Order is fixed, keeping the tool list byte-stable across turns.
 */
export function builtinTools(root: string): AnyTool[] {
  return [
    createReadTool(root),
    createGrepTool(root),
    createGlobTool(root),
    createFindFilesTool(root),
    createListDirTool(root),
    createRepoOverviewTool(root),
    createWebfetchTool(),
    createWriteTool(root),
    createEditTool(root),
    createEditLinesTool(root),
    createApplyPatchTool(root),
    bashTool,
    bashOutputTool,
    killShellTool,
    writeTodoListTool,
  ];
}

export function toolByName(name: string, root: string): AnyTool | undefined {
  return builtinTools(root).find((tool) => tool.name === name);
}
