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

/**
 * The tools whose input is a project path: a rule's pattern for them is a path (Claude Code's anchors apply
 * to it, and it may point outside the project), and `permissions explain tool(arg)` reads `arg` as the path.
 */
export const PATH_TOOLS: ReadonlySet<string> = new Set([
  'read',
  'write',
  'edit',
  'edit_lines',
  'apply_patch',
  'grep',
  'glob',
  'find_files',
  'list_dir',
]);

/** Every built-in tool name (SPEC 5). Profile names may not take one of these (SPEC 3.3). */
export const BUILTIN_TOOL_NAMES = [...READER_TOOLS, ...WRITER_TOOLS, ...SESSION_TOOLS] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Where a foreign tool name comes from; Claude Code names also carry Claude Code's path anchors in rules. */
export type ToolNameSource = 'cadre' | 'claude-code' | 'reasonix' | 'bnerd';

export interface ForeignToolName {
  source: ToolNameSource;
  /** The cadre tools the name stands for in a tool list or a bare rule. */
  tools: readonly string[];
  /** The cadre tools a rule with a pattern (`Bash(git *)`) speaks of; `tools` when absent. */
  patternTools?: readonly string[];
}

const BASH_TOOLS = ['bash', 'bash_output', 'kill_shell'] as const;
const bash = (source: ToolNameSource): ForeignToolName => ({
  source,
  tools: BASH_TOOLS,
  patternTools: ['bash'],
});
const to = (source: ToolNameSource, ...tools: string[]): ForeignToolName => ({ source, tools });

/**
 * THE translation table (SPEC 3.2, 6.1; issues 15 and 16): every other tool's name for a cadre tool, used
 * alike by tool lists (`tools`, `allowed-tools`, `deny_tools`, …), permission rules, profiles and imports.
 * Claude Code's capitalized names, Reasonix's `allowed-tools` names and bnerd's names; a name that is
 * neither a cadre tool, an MCP tool nor in this table is unknown.
 */
export const FOREIGN_TOOL_NAMES: ReadonlyMap<string, ForeignToolName> = new Map<string, ForeignToolName>([
  // Claude Code
  ['Read', to('claude-code', 'read')],
  ['Grep', to('claude-code', 'grep')],
  ['Glob', to('claude-code', 'glob', 'find_files')],
  ['LS', to('claude-code', 'list_dir')],
  ['Bash', bash('claude-code')],
  ['BashOutput', to('claude-code', 'bash_output')],
  ['KillShell', to('claude-code', 'kill_shell')],
  ['KillBash', to('claude-code', 'kill_shell')],
  ['Edit', to('claude-code', 'edit', 'edit_lines')],
  ['MultiEdit', to('claude-code', 'edit', 'edit_lines', 'apply_patch')],
  ['Write', to('claude-code', 'write')],
  ['NotebookEdit', to('claude-code', 'edit')],
  ['WebFetch', to('claude-code', 'webfetch')],
  ['WebSearch', to('claude-code', 'websearch')],
  ['TodoWrite', to('claude-code', 'write_todo_list')],
  ['Task', to('claude-code', 'task', 'task_status')],
  ['Agent', to('claude-code', 'task', 'task_status')],
  ['Skill', to('claude-code', 'skill')],
  ['ExitPlanMode', to('claude-code', 'plan_exit')],
  ['AskUserQuestion', to('claude-code', 'question')],
  // Reasonix `allowed-tools` (seed 002) and bnerd (seed 003) names
  ['read_file', to('reasonix', 'read')],
  ['write_file', to('reasonix', 'write')],
  ['edit_file', to('reasonix', 'edit', 'edit_lines')],
  ['multi_edit', to('reasonix', 'edit', 'edit_lines', 'apply_patch')],
  ['list_directory', to('reasonix', 'list_dir')],
  ['list_files', to('reasonix', 'list_dir')],
  ['directory_tree', to('reasonix', 'list_dir', 'repo_overview')],
  ['search_files', to('reasonix', 'glob', 'find_files')],
  ['search_content', to('reasonix', 'grep')],
  ['run_command', bash('reasonix')],
  ['run_background', bash('reasonix')],
  ['web_fetch', to('reasonix', 'webfetch')],
  ['web_search', to('reasonix', 'websearch')],
  ['todo_write', to('reasonix', 'write_todo_list')],
  ['shell_exec', bash('bnerd')],
  ['file_read', to('bnerd', 'read')],
  ['file_write', to('bnerd', 'write')],
  ['file_edit', to('bnerd', 'edit', 'edit_lines')],
  ['list_dir_tree', to('bnerd', 'list_dir')],
  ['sub_agent', to('bnerd', 'task', 'task_status')],
  ['explore_agent', to('bnerd', 'task', 'task_status')],
]);

/** A tool name as cadre knows it: itself for a built-in or MCP name, its translation, or undefined. */
export function translateToolName(name: string): ForeignToolName | undefined {
  if ((BUILTIN_TOOL_NAMES as readonly string[]).includes(name) || name.startsWith('mcp__'))
    return { source: 'cadre', tools: [name] };
  // Claude Code's team tools are known names that stand for no cadre tool (yet): a rule on one is a no-op.
  if (CLAUDE_CODE_TEAM_TOOLS.includes(name)) return { source: 'claude-code', tools: [] };
  return FOREIGN_TOOL_NAMES.get(name);
}

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
