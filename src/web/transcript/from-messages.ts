import type { ModelMessage } from 'ai';
import type { TranscriptEntry } from './types.js';

const REMINDER = /^<system-reminder>/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
    .map((part) => part.text)
    .join('');
}

function outputText(output: unknown): { text: string; isError: boolean } {
  if (output && typeof output === 'object' && 'type' in output && 'value' in output) {
    const { type, value } = output as { type: string; value: unknown };
    return {
      text: typeof value === 'string' ? value : JSON.stringify(value),
      isError: type.startsWith('error'),
    };
  }
  return { text: typeof output === 'string' ? output : JSON.stringify(output), isError: false };
}

/**
 * The transcript of a conversation the model has already seen: what a reopened session shows before its
 * first live event. Reminders (background results delivered to the model) appear as notices.
 */
export function entriesFromMessages(messages: readonly ModelMessage[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const tools = new Map<string, Extract<TranscriptEntry, { kind: 'tool' }>>();
  messages.forEach((message, index) => {
    const id = `m${index}`;
    if (message.role === 'user') {
      const text = textOf(message.content);
      if (REMINDER.test(text))
        entries.push({ kind: 'notice', id, level: 'info', text: 'Background work reported back.' });
      else if (text !== '') entries.push({ kind: 'user', id, text, origin: 'stored' });
      return;
    }
    if (message.role === 'assistant') {
      const parts =
        typeof message.content === 'string'
          ? [{ type: 'text' as const, text: message.content }]
          : message.content;
      let text = '';
      let reasoning = '';
      for (const part of parts) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'reasoning') reasoning += part.text;
      }
      if (text !== '' || reasoning !== '') entries.push({ kind: 'assistant', id, text, reasoning });
      for (const part of parts) {
        if (part.type !== 'tool-call') continue;
        const tool: Extract<TranscriptEntry, { kind: 'tool' }> = {
          kind: 'tool',
          id: part.toolCallId,
          tool: part.toolName,
          input: part.input,
          status: 'running',
        };
        tools.set(part.toolCallId, tool);
        entries.push(tool);
      }
      return;
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const tool = tools.get(part.toolCallId);
        if (!tool) continue;
        const { text, isError } = outputText(part.output);
        tool.output = text;
        tool.status = isError ? 'error' : 'done';
      }
    }
  });
  // A call without a result was cut off (the process ended mid-turn): it did not finish.
  for (const tool of tools.values()) {
    if (tool.status !== 'running') continue;
    tool.status = 'error';
    tool.output = 'no result was recorded';
  }
  return entries;
}
