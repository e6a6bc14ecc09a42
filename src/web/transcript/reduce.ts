import type { ControllerEvent, SequencedEvent } from '../../controller/types.js';
import type { Transcript, TranscriptEntry } from './types.js';

type Entries = TranscriptEntry[];

/** The last entry when it is the main agent's open text block, which deltas extend. */
function openAssistant(entries: Entries): Extract<TranscriptEntry, { kind: 'assistant' }> | undefined {
  const last = entries.at(-1);
  return last?.kind === 'assistant' ? last : undefined;
}

function withDelta(entries: Entries, seq: number, field: 'text' | 'reasoning', delta: string): Entries {
  const open = openAssistant(entries);
  if (open) return [...entries.slice(0, -1), { ...open, [field]: open[field] + delta }];
  const fresh = { kind: 'assistant' as const, id: `a${seq}`, text: '', reasoning: '' };
  return [...entries, { ...fresh, [field]: delta }];
}

function replaceEntry(
  entries: Entries,
  id: string,
  patch: (entry: TranscriptEntry) => TranscriptEntry,
): Entries {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].id === id) return [...entries.slice(0, i), patch(entries[i]), ...entries.slice(i + 1)];
  }
  return entries;
}

const notice = (seq: number, level: 'info' | 'warning' | 'error', text: string): TranscriptEntry => ({
  kind: 'notice',
  id: `n${seq}`,
  level,
  text,
});

/** The entries after one event. Only the main agent's own work is transcript; subagents live in the panel. */
function nextEntries(entries: Entries, seq: number, event: ControllerEvent): Entries {
  switch (event.type) {
    case 'turn_started':
      if (event.input === null)
        return [...entries, notice(seq, 'info', 'Background work finished; the agent continues.')];
      return [...entries, { kind: 'user', id: event.turnId, text: event.input, origin: event.origin }];
    case 'text_delta':
      return event.agent === 'main' ? withDelta(entries, seq, 'text', event.text) : entries;
    case 'reasoning_delta':
      return event.agent === 'main' ? withDelta(entries, seq, 'reasoning', event.text) : entries;
    case 'tool_call_start':
      if (event.agent !== 'main') return entries;
      return [
        ...entries,
        { kind: 'tool', id: event.callId, tool: event.tool, input: event.input, status: 'running' },
      ];
    case 'tool_call_end':
      if (event.agent !== 'main') return entries;
      return replaceEntry(entries, event.callId, (entry) => ({
        ...entry,
        status: event.isError ? 'error' : 'done',
        output: event.output,
        durationMs: event.durationMs,
      }));
    case 'command_output':
      return [
        ...entries,
        { kind: 'command', id: `c${seq}`, command: event.command, text: event.text, isError: event.isError },
      ];
    case 'notice':
      return [...entries, notice(seq, 'info', event.message)];
    case 'warning':
      return event.agent === 'main' ? [...entries, notice(seq, 'warning', event.message)] : entries;
    case 'error':
      return event.agent === 'main' ? [...entries, notice(seq, 'error', event.message)] : entries;
    case 'retry':
      return event.agent === 'main'
        ? [
            ...entries,
            notice(
              seq,
              'warning',
              `Model call retried (${event.attempt}/${event.maxAttempts}): ${event.cause}`,
            ),
          ]
        : entries;
    case 'compaction':
      return event.agent === 'main'
        ? [
            ...entries,
            notice(
              seq,
              'info',
              `Older turns summarized (${event.messagesBefore} → ${event.messagesAfter} messages).`,
            ),
          ]
        : entries;
    case 'turn_ended': {
      const { outcome } = event;
      // Commands report through command_output, failures through an error event: say only what is left.
      if (outcome.command !== undefined || !outcome.isError || outcome.stopReason === 'failed')
        return entries;
      if (outcome.stopReason === 'cancelled') return [...entries, notice(seq, 'info', 'Interrupted.')];
      return [...entries, notice(seq, 'error', outcome.error ?? `The turn ended: ${outcome.stopReason}.`)];
    }
    case 'review': {
      const { provider, model, files, findings } = event.review;
      const reviewer = [provider, model].filter(Boolean).join(' · ') || 'no model (nothing changed)';
      return [...entries, { kind: 'review', id: `r${seq}`, reviewer, files, findings }];
    }
    case 'session_changed':
      return [notice(seq, 'info', `New conversation (session ${event.sessionId}).`)];
    default:
      return entries;
  }
}

/** Applies one sequenced event; an event at or before the transcript's sequence id is a repeat and ignored. */
export function applyEvent(transcript: Transcript, { seq, event }: SequencedEvent): Transcript {
  if (seq <= transcript.seq) return transcript;
  return { seq, entries: nextEntries(transcript.entries, seq, event) };
}
