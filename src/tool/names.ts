/** The tools a read-only subagent may hold: search, read and fetch (SPEC 7.2 `readonly` tier). */
export const READER_TOOLS = [
  'read',
  'grep',
  'glob',
  'find_files',
  'list_dir',
  'repo_overview',
  'webfetch',
  'websearch',
] as const;

/** Tools stripped by `read-only: true` (SPEC 3.2) and added by the `readwrite` tier (SPEC 7.2). */
export const WRITER_TOOLS = [
  'write',
  'edit',
  'edit_lines',
  'apply_patch',
  'bash',
  'bash_output',
  'kill_shell',
] as const;

/**
 * Tools that act on the session rather than the project: delegation, the todo list, skills, questions
 * and plan mode. Read class for permissions; never given to a subagent (the mandatory floor, SPEC 7.2).
 */
export const SESSION_TOOLS = [
  'task',
  'task_status',
  'fleet',
  'write_todo_list',
  'skill',
  'question',
  'plan_enter',
  'plan_exit',
] as const;

/** Every built-in tool name (SPEC 5). Profile names may not take one of these (SPEC 3.3). */
export const BUILTIN_TOOL_NAMES = [...READER_TOOLS, ...WRITER_TOOLS, ...SESSION_TOOLS] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Claude Code tool names and the cadre tools they translate to (SPEC 3.2). */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  Read: ['read'],
  Grep: ['grep'],
  Glob: ['glob', 'find_files'],
  LS: ['list_dir'],
  Bash: ['bash', 'bash_output', 'kill_shell'],
  Edit: ['edit', 'edit_lines'],
  MultiEdit: ['edit', 'edit_lines', 'apply_patch'],
  Write: ['write'],
  NotebookEdit: ['edit'],
  WebFetch: ['webfetch'],
  WebSearch: ['websearch'],
  TodoWrite: ['write_todo_list'],
  Task: ['task', 'task_status'],
  // Claude Code's newer name for Task.
  Agent: ['task', 'task_status'],
};

/**
 * Claude Code's team tools (shared task list and messages between teammates, SPEC 16): known names, but
 * cadre has no team run to give them to a standalone profile or subagent yet.
 */
export const CLAUDE_CODE_TEAM_TOOLS: readonly string[] = [
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskUpdate',
  'TaskOutput',
  'TaskStop',
  'SendMessage',
  'TeamCreate',
  'TeamDelete',
];
