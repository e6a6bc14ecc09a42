import type { SlashCommand } from '../types.js';

/** `/clear`: start a new conversation; profile, prompt, model and approvals stay. */
export const clearCommand: SlashCommand = {
  name: 'clear',
  summary: 'start a new conversation (a new session record); layers and approvals stay',
  args: '',
  run({ session }) {
    const result = session.clear();
    return { text: result.message, isError: !result.ok };
  },
};
