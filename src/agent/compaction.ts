import type { ModelMessage } from 'ai';

/** Compaction starts when the conversation uses this share of the model's context window. */
export const COMPACTION_THRESHOLD = 0.8;
/** Messages kept verbatim at the end of the conversation. */
export const KEEP_RECENT = 6;
const MAX_RESULT_CHARS = 2000;

/** A rough token count (about four characters a token) for conversations not yet sent. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

function partText(part: unknown): string {
  const p = part as {
    type?: string;
    text?: string;
    toolName?: string;
    input?: unknown;
    output?: { value?: unknown };
  };
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return p.text ?? '';
    case 'tool-call':
      return `[called ${p.toolName} ${JSON.stringify(p.input)}]`;
    case 'tool-result': {
      const value = typeof p.output?.value === 'string' ? p.output.value : JSON.stringify(p.output?.value);
      const cut = value.length > MAX_RESULT_CHARS ? `${value.slice(0, MAX_RESULT_CHARS)}… (cut)` : value;
      return `[result of ${p.toolName}]\n${cut}`;
    }
    default:
      return '';
  }
}

/** The older part of a conversation as plain text for the summarizer. */
export function transcriptOf(messages: readonly ModelMessage[]): string {
  return messages
    .map((m) => {
      const text = typeof m.content === 'string' ? m.content : m.content.map(partText).join('\n');
      return `## ${m.role}\n${text}`;
    })
    .join('\n\n');
}

/**
 * Where to cut: the kept tail starts at a user or assistant message (never between a tool call and its
 * result) and holds at least KEEP_RECENT messages when the conversation allows it. Undefined: nothing to cut.
 */
export function compactionSplit(messages: readonly ModelMessage[], keep = KEEP_RECENT): number | undefined {
  for (let i = messages.length - keep; i > 0; i--) {
    if (messages[i].role !== 'tool') return i;
  }
  return undefined;
}

/** The summary replaces the older messages; the tail stays as it was. */
export function withSummary(summary: string, recent: readonly ModelMessage[]): ModelMessage[] {
  const note: ModelMessage = {
    role: 'user',
    content: `<conversation-summary>\nThe earlier part of this conversation was summarized:\n${summary}\n</conversation-summary>`,
  };
  if (recent[0]?.role === 'assistant') return [note, ...recent];
  return [note, { role: 'assistant', content: 'Understood; I will continue from that summary.' }, ...recent];
}

export interface CompactionPolicy {
  contextWindow: number;
  summarize: (transcript: string) => Promise<string>;
}

/** Compacts when the last known (or estimated) input size nears the window; the session store keeps everything. */
export async function compactIfNeeded(
  messages: ModelMessage[],
  lastInputTokens: number,
  policy: CompactionPolicy,
): Promise<ModelMessage[] | undefined> {
  const used = Math.max(lastInputTokens, estimateTokens(messages));
  if (used < policy.contextWindow * COMPACTION_THRESHOLD) return undefined;
  const split = compactionSplit(messages);
  if (split === undefined) return undefined;
  const summary = await policy.summarize(transcriptOf(messages.slice(0, split)));
  return withSummary(summary.trim(), messages.slice(split));
}
