import type { PermissionSubject, SafetyClass } from '../tool/tool.js';

export type PermissionAction = 'allow' | 'ask' | 'deny';

/** One layer consulted while deciding, in the order consulted (SPEC 6.4, 6.8). */
export interface TraceEntry {
  layer: string;
  /** The rule text that matched in this layer, if any. */
  rule?: string;
  /** Where the rule came from: "file:line", "--yes", "built-in", … */
  source?: string;
  action?: PermissionAction;
  note: string;
}

export interface PermissionDecision {
  action: PermissionAction;
  /** The layer that decided. */
  layer: string;
  rule?: string;
  source?: string;
  /** The call's class as computed (bash per command). */
  safety: SafetyClass;
  /** One sentence for the model / user: which layer and rule decided. */
  reason: string;
  trace: TraceEntry[];
  /**
   * Paths outside the project this call writes (bash redirect targets): when the call runs, a rule or an
   * approval allowed them, and the sandbox binds them writable for this call only.
   */
  grants?: { path: string; directory: boolean }[];
  /** An ask `--yes` would approve (no outside path, no opaque code): what `approval_provider` may decide. */
  yesApprovable?: boolean;
}

export interface PermissionCall {
  tool: string;
  subject: PermissionSubject;
  /** The tool's declared class; bash calls are re-classed by the analyser. */
  safety: SafetyClass;
  /** 'main' or a subagent label. */
  agent: string;
}

export type AskAnswer =
  | { kind: 'allow_once' }
  | { kind: 'always'; pattern: string }
  | { kind: 'deny' }
  | { kind: 'deny_feedback'; feedback: string };

export interface PermissionAsk {
  id: string;
  agent: string;
  /** The model's id of the call asked about, so a client can tie the ask to the call it shows. */
  callId?: string;
  tool: string;
  input: unknown;
  /** Suggested rule for "always allow", e.g. `bash(git checkout *)`. */
  suggestedRule: string;
  decision: PermissionDecision;
}

/** The seam every tool call passes through. */
export interface PermissionGate {
  /** Names of the tools that may be offered to the model (floor and hard denies removed). */
  visibleTools(tools: { name: string; safety: SafetyClass }[]): string[];
  decide(call: PermissionCall): Promise<PermissionDecision>;
  /** Records a session approval ("always allow"), the last layer of the composition. */
  approve(rule: string): void;
  /** Why a webfetch deny rule refuses connecting to `address` (an IP after DNS), if one does. */
  deniedAddress?(address: string): string | undefined;
}
