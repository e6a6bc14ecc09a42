/**
 * The conversation as the web page shows it: plain data built from the controller's events (and, for a
 * reopened session, from its stored messages). The server keeps one per open session so a page that loads
 * or reloads gets it whole, consistent with the event sequence id it then resumes after.
 */
export type TranscriptEntry =
  | {
      kind: 'user';
      id: string;
      text: string;
      /** Who started the turn: typed by the user, sent from the queue, or (null text) background work. */
      origin: 'user' | 'queued' | 'background' | 'stored';
    }
  | { kind: 'assistant'; id: string; text: string; reasoning: string }
  | {
      kind: 'tool';
      id: string;
      tool: string;
      input: unknown;
      status: 'running' | 'done' | 'error';
      output?: string;
      durationMs?: number;
    }
  | { kind: 'command'; id: string; command: string; text: string; isError: boolean }
  | { kind: 'notice'; id: string; level: 'info' | 'warning' | 'error'; text: string }
  /** The session review (SPEC 4.3): who reviewed, the changed files, the findings. */
  | { kind: 'review'; id: string; reviewer: string; files: string[]; findings: string };

export interface Transcript {
  /** The sequence id of the last controller event applied (0: none). */
  seq: number;
  entries: TranscriptEntry[];
}

export const EMPTY_TRANSCRIPT: Transcript = { seq: 0, entries: [] };
