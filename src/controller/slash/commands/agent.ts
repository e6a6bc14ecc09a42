import type { SlashCommand } from '../types.js';
import { agentsListing } from './agents.js';

/** `/agent <name>` activates a profile, `/agent off` drops the layer, `/agent` alone lists (SPEC 4.1). */
export const agentCommand: SlashCommand = {
  name: 'agent',
  summary: 'activate a profile, or turn the profile layer off',
  args: '<name>|off',
  complete: (session, partial) =>
    ['off', ...session.profiles().map((p) => p.name)].filter((n) => n.startsWith(partial)),
  run({ session, args }) {
    if (args === '') return agentsListing(session);
    const result = session.setProfile(args === 'off' ? null : args);
    return { text: result.message, isError: !result.ok };
  },
};
