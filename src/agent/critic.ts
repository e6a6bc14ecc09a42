import type { ModelMessage } from 'ai';

/** The critic's judgement of a final answer (SPEC 4.3, issue 16 B7), as `critic` in the JSON result. */
export interface CriticVerdict {
  /** `unclear`: the critic's reply named no verdict; the answer stands and the user is warned. */
  verdict: 'approve' | 'reject' | 'unclear';
  critique: string;
  /** The `providers` alias of `critic_provider` and its model. */
  provider: string;
  model: string;
  /** The main agent took its one more turn with the critique. */
  revised: boolean;
}

const VERDICT_LINE = /^[\s*#>_`-]*verdict[\s*_`]*[:=-]?[\s*_`]*(approved?|accept(?:ed)?|reject(?:ed)?)\b/i;
const BARE_WORD = /^[\s*#>_`-]*(approved?|accept(?:ed)?|reject(?:ed)?)\b/i;

/** Reads the verdict from the critic's first non-empty line; the rest of the reply is the critique. */
export function parseVerdict(reply: string): { verdict: CriticVerdict['verdict']; critique: string } {
  const lines = reply.trim().split(/\r?\n/);
  const first = lines[0] ?? '';
  const match = VERDICT_LINE.exec(first) ?? BARE_WORD.exec(first);
  if (!match) return { verdict: 'unclear', critique: reply.trim() };
  const verdict = match[1].toLowerCase().startsWith('reject') ? 'reject' : 'approve';
  const rest = [first.slice(match.index + match[0].length).replace(/^[\s*_`.:;,-]+/, ''), ...lines.slice(1)]
    .join('\n')
    .trim();
  return { verdict, critique: rest };
}

/** The text of a user message (attachments and images left out). */
export function messageText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** What the critic reads: the task and the answer, each delimited so neither can pose as the other. */
export function criticRequest(task: string, answer: string): string {
  return `<task>\n${task}\n</task>\n\n<final-answer>\n${answer}\n</final-answer>`;
}

/** The message that gives the main agent its one more turn after a rejection. */
export function critiqueMessage(critique: string): ModelMessage {
  return {
    role: 'user',
    content: `<critic>\n${critique || '(no reason given)'}\n</critic>\nA reviewer rejected your final answer for the reason above. Address the critique, then give your final answer again.`,
  };
}
