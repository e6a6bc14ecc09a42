import type { SlashCommand } from '../types.js';

/** `/quit`: the client ends the session (it closes the controller). */
export const quitCommand: SlashCommand = {
  name: 'quit',
  summary: 'end the session',
  args: '',
  run: () => ({ text: 'bye', quit: true }),
};
