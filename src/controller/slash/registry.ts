import { agentCommand } from './commands/agent.js';
import { agentsCommand } from './commands/agents.js';
import { clearCommand } from './commands/clear.js';
import { compactCommand } from './commands/compact.js';
import { effortCommand } from './commands/effort.js';
import { helpCommand } from './commands/help.js';
import { killCommand } from './commands/kill.js';
import { modelCommand } from './commands/model.js';
import { promptCommand } from './commands/prompt.js';
import { quitCommand } from './commands/quit.js';
import { tasksCommand } from './commands/tasks.js';
import { whyCommand } from './commands/why.js';
import type { SlashCommand } from './types.js';

export { profileTaskCommand } from './commands/profile-task.js';

/** The one slash-command table every client lists and completes from (SPEC 12); `/<profile>` aside. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  agentsCommand,
  agentCommand,
  promptCommand,
  tasksCommand,
  killCommand,
  whyCommand,
  modelCommand,
  effortCommand,
  compactCommand,
  clearCommand,
  helpCommand,
  quitCommand,
];

const BY_NAME = new Map(SLASH_COMMANDS.map((c) => [c.name, c]));

export function findCommand(name: string): SlashCommand | undefined {
  return BY_NAME.get(name);
}
