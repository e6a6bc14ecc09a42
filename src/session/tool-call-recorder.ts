import type { EmitEvent } from '../agent/events.js';
import type { ToolCallsTable } from './tool-calls-table.js';

/**
 * Wraps an agent's event sink so each finished tool call of `agent` is written to `tool_calls` (SPEC 15):
 * the input from its start event, the output and error flag from its end event, in the turn it ran.
 */
export function recordingToolCalls(
  emit: EmitEvent,
  store: ToolCallsTable,
  target: { agent: string; sessionId: string; turnBase?: number },
): EmitEvent {
  const started = new Map<string, { input: unknown; at: number }>();
  let turn = target.turnBase ?? 0;
  return (event) => {
    if (event.agent === target.agent) {
      if (event.type === 'turn_start') turn = (target.turnBase ?? 0) + event.turn;
      else if (event.type === 'tool_call_start')
        started.set(event.callId, { input: event.input, at: Date.now() });
      else if (event.type === 'tool_call_end') {
        const start = started.get(event.callId);
        started.delete(event.callId);
        const endedAt = Date.now();
        store.recordToolCall({
          sessionId: target.sessionId,
          turn,
          callId: event.callId,
          tool: event.tool,
          input: start?.input ?? null,
          output: event.output,
          isError: event.isError,
          startedAt: start?.at ?? endedAt - event.durationMs,
          endedAt,
        });
      }
    }
    emit(event);
  };
}
