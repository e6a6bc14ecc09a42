import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';

type Part = { type: string; [key: string]: unknown };

function parts(content: string | readonly unknown[]): Part[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Part[]);
}

/** A user or assistant content part as the provider layer takes it; empty texts are left out as the SDK does. */
function convertPart(part: Part): unknown[] {
  const providerOptions = part.providerOptions;
  switch (part.type) {
    case 'text':
      return part.text === '' && providerOptions === undefined
        ? []
        : [{ type: 'text', text: part.text, providerOptions }];
    case 'reasoning':
      return [{ type: 'reasoning', text: part.text, providerOptions }];
    case 'image':
      return [{ type: 'file', data: part.image, mediaType: part.mediaType ?? 'image/*', providerOptions }];
    case 'file':
      return [
        {
          type: 'file',
          data: part.data,
          filename: part.filename,
          mediaType: part.mediaType,
          providerOptions,
        },
      ];
    case 'tool-call':
      return [
        {
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          providerExecuted: part.providerExecuted,
          providerOptions,
        },
      ];
    case 'tool-result':
      return [
        {
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: part.output,
          providerOptions,
        },
      ];
    default:
      return [];
  }
}

/**
 * Each history message's converted parts, kept while the message lives: history only grows, so a turn
 * converts its new messages instead of the whole conversation again (issue 17). Messages are not changed
 * once in history; the cached arrays are never changed either (merging builds a new one).
 */
const convertedParts = new WeakMap<object, unknown[]>();

function partsOf(message: Exclude<ModelMessage, { role: 'system' }>): unknown[] {
  let converted = convertedParts.get(message);
  if (!converted) {
    converted = parts(message.content).flatMap(convertPart);
    convertedParts.set(message, converted);
  }
  return converted;
}

/**
 * cadre's conversation (the `ai` package's public ModelMessage type) as the provider-level prompt that
 * `doStream` takes: the system text first, consecutive tool messages merged into one, as the SDK does.
 * Written here so cadre uses only the public API of its dependencies.
 */
export function toProviderPrompt(system: string, messages: readonly ModelMessage[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'system') {
      prompt.push({ role: 'system', content: message.content, providerOptions: message.providerOptions });
      continue;
    }
    const content = partsOf(message);
    const last = prompt.at(-1);
    if (message.role === 'tool' && last?.role === 'tool') {
      last.content = [...last.content, ...(content as typeof last.content)];
      continue;
    }
    prompt.push({
      role: message.role,
      content,
      providerOptions: message.providerOptions,
    } as LanguageModelV3Message);
  }
  return prompt.filter((m) => m.role !== 'tool' || m.content.length > 0);
}

/** The provider's usage report in cadre's terms. */
export function usageOf(usage: LanguageModelV3Usage): {
  inputTokens?: number;
  outputTokens?: number;
  inputTokenDetails?: { cacheReadTokens?: number };
  outputTokenDetails?: { reasoningTokens?: number };
} {
  return {
    inputTokens: usage.inputTokens.total,
    outputTokens: usage.outputTokens.total,
    inputTokenDetails: { cacheReadTokens: usage.inputTokens.cacheRead },
    outputTokenDetails: { reasoningTokens: usage.outputTokens.reasoning },
  };
}
