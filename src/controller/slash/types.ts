import type { StopReason } from '../../agent/loop.js';
import type { SessionController } from '../session-controller.js';

/** What a command returns; its text is shown to the user (and is the answer of a headless run). */
export interface CommandResult {
  text: string;
  isError?: boolean;
  /** `/quit`: the client should end. */
  quit?: boolean;
  /** For commands that run a model (`/<profile> <task>`): how that run ended. */
  stopReason?: StopReason;
}

export interface CommandContext {
  session: SessionController;
  /** Everything after the command name, trimmed. */
  args: string;
  /** Aborted by an interrupt; only meaningful for commands that run as a turn. */
  signal: AbortSignal;
}

/** One slash command: one file under commands/, registered once in registry.ts. */
export interface SlashCommand {
  name: string;
  /** One line for `/help` and for clients' completion menus. */
  summary: string;
  /** The argument hint, e.g. `<name>|off`; empty when it takes none. */
  args: string;
  /**
   * Runs as a turn (it calls a model): the session is busy meanwhile, an interrupt cancels it, and sent
   * during another turn it queues behind it. Other commands run at once, even during a turn.
   */
  turn?: (args: string) => boolean;
  /** Completions for the argument being typed (profile names, prompt names, levels…). */
  complete?: (session: SessionController, partial: string) => string[];
  run(context: CommandContext): Promise<CommandResult> | CommandResult;
}
