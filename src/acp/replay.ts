import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ModelMessage } from 'ai';
import { textContent, toolKind, toolTitle } from './tool-calls.js';

/** A stored conversation as the updates that show it (`session/load`, SPEC 12.1). */
export function replayUpdates(messages: readonly ModelMessage[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const text = (value: string) => ({ type: 'text' as const, text: value });
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (typeof message.content === 'string') {
      if (message.role === 'user')
        updates.push({ sessionUpdate: 'user_message_chunk', content: text(message.content) });
      else if (message.role === 'assistant')
        updates.push({ sessionUpdate: 'agent_message_chunk', content: text(message.content) });
      continue;
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          updates.push({
            sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
            content: text(part.text),
          });
          break;
        case 'reasoning':
          updates.push({ sessionUpdate: 'agent_thought_chunk', content: text(part.text) });
          break;
        case 'tool-call':
          updates.push({
            sessionUpdate: 'tool_call',
            toolCallId: `main:${part.toolCallId}`,
            title: toolTitle(part.toolName, part.input, 'main'),
            kind: toolKind(part.toolName),
            status: 'in_progress',
            rawInput: part.input,
          });
          break;
        case 'tool-result': {
          const output = part.output as { type: string; value?: unknown };
          const value = typeof output.value === 'string' ? output.value : JSON.stringify(output.value ?? '');
          updates.push({
            sessionUpdate: 'tool_call_update',
            toolCallId: `main:${part.toolCallId}`,
            status: output.type === 'error-text' || output.type === 'error-json' ? 'failed' : 'completed',
            content: [textContent(value)],
          });
          break;
        }
        default:
          break;
      }
    }
  }
  return updates;
}
