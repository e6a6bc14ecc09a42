import type { StoreContext } from './sql.js';

export interface ApprovalsTable {
  /** Records an "always allow" rule for the session; adding the same rule again changes nothing. */
  addApproval(sessionId: string, rule: string): void;
  /** The session's rules in the order first approved, to re-apply on `--resume`. */
  approvals(sessionId: string): string[];
}

export function approvalsTable({ sql, now }: StoreContext): ApprovalsTable {
  return {
    addApproval(sessionId, rule) {
      sql.run(
        'INSERT INTO approvals (session_id, rule, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        sessionId,
        rule,
        now(),
      );
    },

    approvals(sessionId) {
      return sql
        .all<{ rule: string }>('SELECT rule FROM approvals WHERE session_id = ? ORDER BY rowid', sessionId)
        .map((row) => row.rule);
    },
  };
}
