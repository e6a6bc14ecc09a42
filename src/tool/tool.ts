import type { z } from 'zod';
import type { WriteGrant } from '../sandbox/policy.js';
import type { ShellSandbox } from '../sandbox/sandbox.js';

/** Safety class of one tool call (SPEC 6.2). Ordered from least to most severe. */
export type SafetyClass = 'read' | 'write' | 'destructive';

export const SAFETY_ORDER: readonly SafetyClass[] = ['read', 'write', 'destructive'];

/**
 * What the permission engine matches a tool's rules against (SPEC 6.1):
 * - path: gitignore-style globs over the paths the call touches
 * - bash: the shell command, split into simple commands
 * - url: `domain:` patterns over the URL's host
 * - name: the plain string subject (task profile name, skill name, …)
 * - none: only bare `tool` rules apply
 */
export type PermissionSubject =
  /** `linked`: paths among them with more than one hard link, written as if outside the project. */
  | { kind: 'path'; paths: string[]; linked?: string[] }
  | { kind: 'bash'; command: string }
  | { kind: 'url'; url: string }
  | { kind: 'name'; value: string }
  | { kind: 'none' };

export interface ToolResult {
  output: string;
  isError?: boolean;
}

export interface ShellJob {
  id: string;
  command: string;
  startedAt: number;
  /** Output not yet returned by bash_output. */
  drain(): string;
  status(): 'running' | 'exited' | 'killed';
  exitCode(): number | null;
  kill(): void;
}

export interface ShellJobs {
  /** `grants`: outside paths this call may write (see ToolContext.grants). */
  start(command: string, cwd: string, grants?: readonly WriteGrant[]): ShellJob;
  get(id: string): ShellJob | undefined;
  list(): ShellJob[];
  killAll(): void;
}

export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface ToolContext {
  /** Project root, already resolved through symlinks. Every path tool is confined to it. */
  root: string;
  signal: AbortSignal;
  /** 'main' or the subagent's label; shown on asks and events. */
  agent: string;
  sessionId: string;
  jobs: ShellJobs;
  todos: { get(): TodoItem[]; set(items: TodoItem[]): void };
  /** The OS sandbox every shell command of this agent runs in (src/sandbox); absent: plain bash. */
  sandbox?: ShellSandbox;
  /** Outside paths a rule or an approval allowed for this one call: the sandbox binds them writable. */
  grants?: readonly WriteGrant[];
  /** The reason a deny rule refuses connecting to this IP address, if one does (webfetch, after DNS). */
  checkAddress?: (address: string) => string | undefined;
}

export interface Tool<I = unknown> {
  name: string;
  description: string;
  /** Validates the model's input; its JSON Schema is what the model sees. */
  schema: z.ZodType<I>;
  /** Sent to the model instead of the schema's conversion (MCP tools carry their server's JSON Schema). */
  inputJsonSchema?: Record<string, unknown>;
  /** Static class, or per-input (bash is classed by the permission engine's analyser). */
  safety: SafetyClass;
  subject(input: I): PermissionSubject;
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
  /** Loads what `execute` needs ahead of the first call (a session runs it during its first model call). */
  warm?(): Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyTool = Tool<any>;
