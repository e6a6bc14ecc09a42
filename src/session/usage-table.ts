import type { StoreContext } from './sql.js';
import type { TurnUsage, UsageTotals } from './types.js';

interface TotalsRow {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cached_input_tokens: number;
  cost_usd: number | null;
  records: number;
}

const SUMS = `coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
  coalesce(sum(reasoning_tokens), 0) AS reasoning_tokens,
  coalesce(sum(cached_input_tokens), 0) AS cached_input_tokens,
  sum(cost_usd) AS cost_usd, count(*) AS records`;

// The session and its descendants (a subagent's child session, and any session below that).
const SESSION_TREE = `WITH RECURSIVE tree(id) AS (
    SELECT @sessionId
    UNION ALL
    SELECT sessions.id FROM sessions JOIN tree ON sessions.parent_id = tree.id
  )`;

function toTotals(row: TotalsRow | undefined): UsageTotals {
  return {
    inputTokens: row?.input_tokens ?? 0,
    outputTokens: row?.output_tokens ?? 0,
    reasoningTokens: row?.reasoning_tokens ?? 0,
    cachedInputTokens: row?.cached_input_tokens ?? 0,
    costUsd: row?.cost_usd ?? null,
    records: row?.records ?? 0,
  };
}

export interface UsageTable {
  /** Adds one model call's usage to the session's turn; several calls for one turn all count. */
  recordUsage(sessionId: string, turn: number, usage: TurnUsage): void;
  sessionUsage(sessionId: string): UsageTotals;
  /**
   * The session plus every descendant session. A task that ran without a child session (a toolless
   * subagent) counts through the tokens and cost on its task record instead; its reasoning and cached
   * tokens are not known there.
   */
  sessionUsageWithChildren(sessionId: string): UsageTotals;
}

export function usageTable({ sql, now }: StoreContext): UsageTable {
  return {
    recordUsage(sessionId, turn, usage) {
      sql.run(
        `INSERT INTO usage (session_id, turn, input_tokens, output_tokens, reasoning_tokens,
           cached_input_tokens, cost_usd, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        sessionId,
        turn,
        usage.inputTokens,
        usage.outputTokens,
        usage.reasoningTokens ?? 0,
        usage.cachedInputTokens ?? 0,
        usage.costUsd ?? null,
        now(),
      );
    },

    sessionUsage(sessionId) {
      return toTotals(sql.get<TotalsRow>(`SELECT ${SUMS} FROM usage WHERE session_id = ?`, sessionId));
    },

    sessionUsageWithChildren(sessionId) {
      const row = sql.get<TotalsRow>(
        `${SESSION_TREE},
         counted(input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, cost_usd) AS (
           SELECT input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, cost_usd
           FROM usage WHERE session_id IN (SELECT id FROM tree)
           UNION ALL
           SELECT input_tokens, output_tokens, 0, 0, cost_usd
           FROM tasks WHERE child_session_id IS NULL AND parent_session_id IN (SELECT id FROM tree)
             AND (input_tokens > 0 OR output_tokens > 0 OR cost_usd IS NOT NULL)
         )
         SELECT ${SUMS} FROM counted`,
        { sessionId },
      );
      return toTotals(row);
    },
  };
}
