import { formatAgentsText } from '../../../profile/listing.js';
import { resolveRoles } from '../../../profile/roles.js';
import type { SessionController } from '../../session-controller.js';
import type { CommandResult, SlashCommand } from '../types.js';

/** The profile listing of `cadre agents`, the active profile marked `*`. */
export function agentsListing(session: SessionController): CommandResult {
  const { runtime } = session;
  const config = runtime.loadedConfig.config;
  return {
    text: formatAgentsText(
      runtime.profileRegistry,
      resolveRoles(config),
      config,
      runtime.activeProfile,
    ).trimEnd(),
  };
}

/** `/agents` lists profiles and role routing; `/agents reload` re-reads every source. */
export const agentsCommand: SlashCommand = {
  name: 'agents',
  summary: 'list profiles (active marked *), collisions, warnings and role routing; reload re-reads them',
  args: '[reload]',
  complete: (_session, partial) => ['reload'].filter((w) => w.startsWith(partial)),
  run({ session, args }) {
    if (args === '') return agentsListing(session);
    if (args !== 'reload') return { text: `usage: /agents [reload] (got "${args}")`, isError: true };
    const result = session.reloadProfiles();
    return { text: result.message, isError: !result.ok };
  },
};
