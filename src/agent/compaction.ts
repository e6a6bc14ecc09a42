import type { ModelMessage } from 'ai';

/** Compaction starts when the conversation uses this share of the model's context window. */
export const COMPACTION_THRESHOLD = 0.8;
/** Messages kept verbatim at the end of the conversation. */
export const KEEP_RECENT = 6;
const MAX_RESULT_CHARS = 2000;

/** Messages' estimated sizes, kept per message object: the history only grows, so each is measured once. */
const sizes = new WeakMap<object, number>();

function messageTokens(message: ModelMessage): number {
  let size = sizes.get(message);
  if (size === undefined) {
    size = Math.ceil(JSON.stringify(message).length / 4);
    sizes.set(message, size);
  }
  return size;
}

/** A rough token count (about four characters a token), incremental: only new messages are serialized. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** Tool results kept in the shortened form (head and tail with a marker). */
export const SHORT_RESULT_CHARS = 1000;

function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut by context compaction …]\n${text.slice(text.length - half)}`;
}

/** A tool message with every result output cut to `max` characters; the same object when nothing changes. */
function shortenToolMessage(message: ModelMessage, max: number): ModelMessage {
  if (message.role !== 'tool') return message;
  let changed = false;
  const content = message.content.map((part) => {
    if (part.type !== 'tool-result') return part;
    const output = part.output as { type: string; value: unknown };
    const text = typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
    if (text.length <= max) return part;
    changed = true;
    const type = output.type === 'error-text' || output.type === 'error-json' ? 'error-text' : 'text';
    return { ...part, output: { type, value: shortened(text, max) } } as typeof part;
  });
  return changed ? { ...message, content } : message;
}

/** The one message's text cut to fit `maxTokens`, with a marker saying so. */
function truncateMessage(message: ModelMessage, maxTokens: number): ModelMessage {
  const maxChars = Math.max(200, maxTokens * 4);
  if (message.role === 'tool') return shortenToolMessage(message, maxChars);
  if (typeof message.content === 'string')
    return { ...message, content: shortened(message.content, maxChars) } as ModelMessage;
  const content = message.content.map((part) =>
    part.type === 'text' ? { ...part, text: shortened(part.text, maxChars) } : part,
  );
  return { ...message, content } as ModelMessage;
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

/**
 * After a failed compaction the next attempts are skipped, doubling each failure (1, 2, 4 … 16 turns),
 * so a broken summarizer costs one call now and then instead of one every turn. A success resets it.
 */
export class CompactionBackoff {
  private failures = 0;
  private skipLeft = 0;

  /** Whether this turn's attempt is skipped (and counts it). */
  skip(): boolean {
    if (this.skipLeft === 0) return false;
    this.skipLeft--;
    return true;
  }

  failed(): void {
    this.failures++;
    this.skipLeft = Math.min(16, 2 ** (this.failures - 1));
  }

  succeeded(): void {
    this.failures = 0;
    this.skipLeft = 0;
  }
}

export interface CompactionPolicy {
  contextWindow: number;
  summarize: (transcript: string) => Promise<string>;
  backoff?: CompactionBackoff;
}

/** The largest message's index. */
function largest(messages: readonly ModelMessage[]): number {
  let index = 0;
  for (let i = 1; i < messages.length; i++)
    if (messageTokens(messages[i]) > messageTokens(messages[index])) index = i;
  return index;
}

/**
 * Brings the request under the window (SPEC 4.3): old tool results are shortened first (no model call
 * when that is enough); then the older turns are summarized; if the request would still not fit, the kept
 * tool results are shortened and finally the single largest message is truncated with a marker. The
 * session store keeps everything. `lastInputTokens` is the provider's count of the last request, which
 * also covers the system prompt and tools: the difference to the estimate is kept as fixed overhead.
 */
export async function compactIfNeeded(
  messages: ModelMessage[],
  lastInputTokens: number,
  policy: CompactionPolicy,
): Promise<ModelMessage[] | undefined> {
  const target = policy.contextWindow * COMPACTION_THRESHOLD;
  const estimate = estimateTokens(messages);
  const used = Math.max(lastInputTokens, estimate);
  if (used < target || policy.backoff?.skip()) return undefined;
  const overhead = used - estimate;
  const fits = (candidate: readonly ModelMessage[]) => overhead + estimateTokens(candidate) < target;

  const split = compactionSplit(messages);
  const head = split === undefined ? [] : messages.slice(0, split);
  const tail = split === undefined ? messages : messages.slice(split);
  const trimmedHead = head.map((m) => shortenToolMessage(m, SHORT_RESULT_CHARS));
  if (head.length > 0 && fits([...trimmedHead, ...tail])) return [...trimmedHead, ...tail];

  let result: ModelMessage[] = tail;
  if (head.length > 0) {
    let summary: string;
    try {
      summary = await policy.summarize(transcriptOf(head));
    } catch (error) {
      policy.backoff?.failed();
      throw error;
    }
    policy.backoff?.succeeded();
    result = withSummary(summary.trim(), tail);
  }
  if (fits(result)) return result;
  result = result.map((m) => shortenToolMessage(m, SHORT_RESULT_CHARS));
  if (fits(result)) return result;
  const index = largest(result);
  // A tenth of the room is left for the marker and the JSON around the text.
  const room = target - overhead - (estimateTokens(result) - messageTokens(result[index]));
  result = result.map((m, i) => (i === index ? truncateMessage(m, Math.max(0, Math.floor(room * 0.9))) : m));
  return result;
}
