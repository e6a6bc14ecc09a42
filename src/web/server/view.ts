import type { ControllerState } from '../../controller/types.js';
import type { TranscriptEntry } from '../transcript/types.js';
import type { OpenSession } from './hub.js';

export interface Catalog {
  /** Every loaded profile; the page adds `default` (no profile) in front. */
  profiles: { name: string; description: string | null }[];
  prompts: { name: string; description: string | null }[];
  commands: { name: string; summary: string; args: string }[];
}

/** Everything a page needs to draw a session from scratch, as of one sequence id. */
export interface SessionView {
  key: string;
  seq: number;
  entries: TranscriptEntry[];
  state: ControllerState;
  catalog: Catalog;
}

export function catalogOf({ controller }: OpenSession): Catalog {
  return {
    profiles: controller.profiles().map(({ name, description }) => ({ name, description })),
    prompts: controller.prompts().map(({ name, description }) => ({ name, description })),
    commands: controller.commands(),
  };
}

export function viewOf(session: OpenSession, state: ControllerState): SessionView {
  return {
    key: session.key,
    seq: session.transcript.seq,
    entries: session.transcript.entries,
    state,
    catalog: catalogOf(session),
  };
}
