import type { PermissionAction } from '../permission/types.js';
import type { StoreContext } from './sql.js';
import type { NewToolCall, ToolCallRecord } from './types.js';

/** The tool_calls copy of an output is for inspection; the model's full view lives in the messages. */
export const TOOL_OUTPUT_KEEP_CHARS = 4096;

interface ToolCallRow {
  session_id: string;
  turn: number;
  call_id: string;
  tool: string;
  input: string;
  output: string;
  output_truncated: number;
  is_error: number;
  decision_action: PermissionAction | null;
  decision_layer: string | null;
  decision_rule: string | null;
  started_at: number;
  ended_at: number;
}

function toRecord(row: ToolCallRow): ToolCallRecord {
  return {
    sessionId: row.session_id,
    turn: row.turn,
    callId: row.call_id,
    tool: row.tool,
    input: JSON.parse(row.input),
    output: row.output,
    outputTruncated: row.output_truncated === 1,
    isError: row.is_error === 1,
    decision:
      row.decision_action === null
        ? null
        : {
            action: row.decision_action,
            layer: row.decision_layer ?? '',
            ...(row.decision_rule === null ? {} : { rule: row.decision_rule }),
          },
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export interface ToolCallsTable {
  recordToolCall(call: NewToolCall): void;
  /** In the order recorded. */
  toolCalls(sessionId: string): ToolCallRecord[];
}

export function toolCallsTable({ sql }: StoreContext): ToolCallsTable {
  return {
    recordToolCall(call) {
      const truncated = call.output.length > TOOL_OUTPUT_KEEP_CHARS;
      sql.run(
        `INSERT INTO tool_calls (session_id, turn, call_id, tool, input, output, output_truncated, is_error,
           decision_action, decision_layer, decision_rule, started_at, ended_at)
         VALUES (@sessionId, @turn, @callId, @tool, @input, @output, @truncated, @isError,
           @action, @layer, @rule, @startedAt, @endedAt)`,
        {
          sessionId: call.sessionId,
          turn: call.turn,
          callId: call.callId,
          tool: call.tool,
          // undefined input (a tool without parameters) is stored as null so it parses back.
          input: JSON.stringify(call.input ?? null),
          output: truncated ? call.output.slice(0, TOOL_OUTPUT_KEEP_CHARS) : call.output,
          truncated: truncated ? 1 : 0,
          isError: call.isError ? 1 : 0,
          action: call.decision?.action ?? null,
          layer: call.decision?.layer ?? null,
          rule: call.decision?.rule ?? null,
          startedAt: call.startedAt,
          endedAt: call.endedAt,
        },
      );
    },

    toolCalls(sessionId) {
      return sql
        .all<ToolCallRow>(
          `SELECT session_id, turn, call_id, tool, input, output, output_truncated, is_error,
             decision_action, decision_layer, decision_rule, started_at, ended_at
           FROM tool_calls WHERE session_id = ? ORDER BY id`,
          sessionId,
        )
        .map(toRecord);
    },
  };
}
