import type { AvailableCommand, SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { SessionController } from '../controller/session-controller.js';

/** The mode (and profile option value) that means "no profile": `/agent off`. */
export const DEFAULT_MODE = 'default';

/** The config option that selects the profile, beside the modes (for clients that show options). */
export const PROFILE_OPTION = 'profile';

/** Profiles offered as session modes: `session/set_mode` is `/agent <name>`, `default` is `/agent off`. */
export function sessionModes(controller: SessionController): SessionModeState {
  const profiles = controller.profiles();
  return {
    currentModeId: profiles.find((p) => p.active)?.name ?? DEFAULT_MODE,
    availableModes: [
      { id: DEFAULT_MODE, name: DEFAULT_MODE, description: 'no profile: the base prompt, model and tools' },
      ...profiles.map((p) => ({ id: p.name, name: p.name, description: p.description })),
    ],
  };
}

export function configOptions(controller: SessionController): SessionConfigOption[] {
  const modes = sessionModes(controller);
  return [
    {
      id: PROFILE_OPTION,
      name: 'Profile',
      description: 'the active cadre profile (/agent)',
      category: 'mode',
      type: 'select',
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
  ];
}

/** The slash-command table, and each profile as `/<profile> <task>`. */
export function availableCommands(controller: SessionController): AvailableCommand[] {
  return [
    ...controller.commands().map((c) => ({
      name: c.name,
      description: c.summary,
      input: c.args ? { hint: c.args } : null,
    })),
    ...controller.profiles().map((p) => ({
      name: p.name,
      description: `run the ${p.name} profile as a subagent${p.description ? `: ${p.description}` : ''}`,
      input: { hint: '<task>' },
    })),
  ];
}
