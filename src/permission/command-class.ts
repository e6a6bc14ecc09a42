import type { SafetyClass } from '../tool/tool.js';

/** A word of a command (an index into its words), and where in it a path starts (`--output=` is 9). */
export interface OperandRef {
  index: number;
  offset: number;
}

/** The class of one simple command (SPEC 6.5), the table entry that gave it, and the files it names. */
export interface CommandClass {
  safety: SafetyClass;
  /**
   * Runs code the analyser cannot see (an interpreter given code, a program named by an option, a setting
   * that makes programs run code): whatever paths it touches are unknown, so no default — and no --yes —
   * approves it; only a rule written for it does.
   */
  opaque?: boolean;
  why: string;
  /** Files the command reads: checked against the project root (reads outside ask, SPEC 5). */
  reads?: OperandRef[];
  /** Files the command writes: checked like redirections. */
  writes?: (OperandRef & { truncates: boolean })[];
}
