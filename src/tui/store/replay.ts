import type { ModelMessage } from 'ai';
import { describeCall } from '../../agent/describe-call.js';
import type { ToolCardView } from '../render/tool-card.js';

/** A finished transcript entry without its id, as `TranscriptStore.add` takes it. */
export type ReplayedItem =
  | { kind: 'user'; text: string }
  | { kind: 'markdown'; text: string }
  | { kind: 'tool'; card: Omit<ToolCardView, 'number'>; expanded: false };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (part): part is { type: 'text'; text: string } =>
        part?.type === 'text' && typeof part.text === 'string',
    )
    .map((part) => part.text)
    .join('');
}

function outputText(output: unknown): { text: string; isError: boolean } {
  if (!output || typeof output !== 'object') return { text: '', isError: false };
  const { type, value } = output as { type?: string; value?: unknown };
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return { text, isError: type === 'error-text' || type === 'error-json' };
}

/**
 * A resumed conversation as transcript entries: the user's prompts, the answers, and each tool call with its
 * result, so `--continue` opens where the session left off. System reminders the runtime added are skipped.
 */
export function replayItems(messages: readonly ModelMessage[]): ReplayedItem[] {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.set(part.toolCallId, outputText(part.output));
    }
  }
  const items: ReplayedItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const text = textOf(message.content).trim();
      if (text !== '' && !text.startsWith('<system-reminder>')) items.push({ kind: 'user', text });
    } else if (message.role === 'assistant') {
      const parts =
        typeof message.content === 'string'
          ? [{ type: 'text' as const, text: message.content }]
          : message.content;
      for (const part of parts) {
        if (part.type === 'text' && part.text.trim() !== '')
          items.push({ kind: 'markdown', text: part.text });
        if (part.type === 'tool-call') {
          const result = results.get(part.toolCallId);
          items.push({
            kind: 'tool',
            card: {
              title: describeCall(part.toolName, part.input),
              tool: part.toolName,
              input: part.input,
              status: result?.isError ? 'error' : 'ok',
              output: result?.text,
            },
            expanded: false,
          });
        }
      }
    }
  }
  return items;
}
