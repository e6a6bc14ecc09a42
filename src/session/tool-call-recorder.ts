import type { EmitEvent } from '../agent/events.js';
import type { SessionStore } from './store.js';

/**
 * Wraps an agent's event sink so each finished tool call of `agent` is written to `tool_calls` (SPEC 15):
 * the input from its start event, the output and error flag from its end event, in the turn it ran. The
 * row is written after the turn's next model request is on its way (`writeLater`, issue 17); a deferred
 * write that failed stops the run before the next tool starts, as the write failing at its own time did.
 */
export function recordingToolCalls(
  emit: EmitEvent,
  store: Pick<SessionStore, 'writeLater' | 'flushWrites'>,
  target: { agent: string; sessionId: string; turnBase?: number },
): EmitEvent {
  const started = new Map<string, { input: unknown; at: number }>();
  let turn = target.turnBase ?? 0;
  return (event) => {
    if (event.agent === target.agent) {
      if (event.type === 'turn_start') turn = (target.turnBase ?? 0) + event.turn;
      else if (event.type === 'tool_call_start') {
        store.flushWrites();
        started.set(event.callId, { input: event.input, at: Date.now() });
      } else if (event.type === 'tool_call_end') {
        const start = started.get(event.callId);
        started.delete(event.callId);
        const endedAt = Date.now();
        const call = {
          sessionId: target.sessionId,
          turn,
          callId: event.callId,
          tool: event.tool,
          input: start?.input ?? null,
          output: event.output,
          isError: event.isError,
          startedAt: start?.at ?? endedAt - event.durationMs,
          endedAt,
        };
        store.writeLater((records) => records.recordToolCall(call));
      }
    }
    emit(event);
  };
}
