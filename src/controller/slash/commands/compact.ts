import type { SlashCommand } from '../types.js';

/** `/compact`: summarize the older conversation now (the session record keeps everything). */
export const compactCommand: SlashCommand = {
  name: 'compact',
  summary: 'summarize the older part of the conversation to free context',
  args: '',
  turn: () => true,
  async run({ session, signal }) {
    const done = await session.runtime.compactNow(signal);
    return done
      ? { text: `compacted: ${done.before} messages became ${done.after}` }
      : { text: 'nothing to compact yet: the conversation is short' };
  },
};
