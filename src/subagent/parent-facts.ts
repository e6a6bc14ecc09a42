import type { ModelMessage } from 'ai';

const MAX_DECISIONS = 6;
const MAX_DECISION_CHARS = 400;
const MAX_ANCHORS = 40;
const MAX_EVIDENCE = 8;
const MAX_EVIDENCE_CHARS = 200;

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The compact *parent facts pack* the review built-ins receive (SPEC 3.4): the user's request, decisions the
 * parent stated so far, evidence from its tool results, and the files it touched, as anchors to check.
 */
export function parentFactsPack(messages: readonly ModelMessage[]): string {
  const request = messages.find((m) => m.role === 'user');
  const decisions = messages
    .filter((m) => m.role === 'assistant')
    .map(textOf)
    .filter((t) => t !== '')
    .slice(-MAX_DECISIONS)
    .map((t) => `- ${clip(t, MAX_DECISION_CHARS)}`);
  const anchors = new Set<string>();
  const evidence: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        const input = part.input as { path?: unknown; command?: unknown } | undefined;
        if (typeof input?.path === 'string') anchors.add(input.path);
        if (typeof input?.command === 'string')
          evidence.push(`- ran \`${clip(input.command, MAX_EVIDENCE_CHARS)}\``);
      } else if (part.type === 'tool-result' && part.output.type === 'error-text') {
        evidence.push(`- ${part.toolName} failed: ${clip(part.output.value, MAX_EVIDENCE_CHARS)}`);
      }
    }
  }
  const sections = [
    request ? `Request: ${clip(textOf(request), MAX_DECISION_CHARS)}` : '',
    decisions.length > 0 ? `Decisions and findings so far:\n${decisions.join('\n')}` : '',
    evidence.length > 0 ? `Evidence:\n${evidence.slice(-MAX_EVIDENCE).join('\n')}` : '',
    anchors.size > 0 ? `Files involved: ${[...anchors].slice(-MAX_ANCHORS).join(', ')}` : '',
  ].filter((s) => s !== '');
  return sections.length > 0 ? `<parent-facts>\n${sections.join('\n\n')}\n</parent-facts>` : '';
}
