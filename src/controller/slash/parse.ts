import { closeMatches } from '../../util/close-matches.js';
import type { SlashCommand } from './types.js';

export type ParsedInput =
  | { kind: 'prompt'; text: string }
  | { kind: 'command'; name: string; args: string; command: SlashCommand }
  | { kind: 'unknown'; name: string; suggestions: string[] };

/** A bare command word: `/agnet` could be a typo of a command, `/etc/hosts` or `/3` could not. */
const COMMAND_WORD = /^[A-Za-z][A-Za-z0-9._-]*$/;

/**
 * A leading `/word` is a command only when `word` is a registered command or a loaded profile (which
 * runs `/<profile> <task>`); a bare word close to one of those is an unknown command, listed with its
 * close matches; anything else (`/etc/hosts looks wrong`) is a prompt, sent to the model unchanged.
 */
export function parseInput(
  text: string,
  lookup: (name: string) => SlashCommand | undefined,
  names: () => string[],
): ParsedInput {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('/')) return { kind: 'prompt', text };
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed);
  const name = match?.[1] ?? '';
  const args = (match?.[2] ?? '').trim();
  const command = lookup(name);
  if (command) return { kind: 'command', name, args, command };
  if (!COMMAND_WORD.test(name)) return { kind: 'prompt', text };
  const suggestions = closeMatches(name, names());
  return suggestions.length > 0 ? { kind: 'unknown', name, suggestions } : { kind: 'prompt', text };
}
