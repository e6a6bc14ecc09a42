import type { ControllerState, SequencedEvent } from '../../../controller/types.js';
import type { Catalog, SessionView } from '../../server/view.js';
import { applyEvent } from '../../transcript/reduce.js';
import type { Transcript } from '../../transcript/types.js';
import type { Connection } from '../header/Header.js';

/** What the page knows of the session it shows: all of it from the server's view and events. */
export interface PageSession {
  connection: Connection;
  transcript: Transcript;
  state: ControllerState | null;
  catalog: Catalog | null;
}

export type PageAction =
  | { type: 'view'; view: SessionView }
  | { type: 'event'; event: SequencedEvent }
  | { type: 'connection'; connection: Connection }
  | { type: 'catalog'; catalog: Catalog }
  | { type: 'reset' };

export const INITIAL_SESSION: PageSession = {
  connection: 'connecting',
  transcript: { seq: 0, entries: [] },
  state: null,
  catalog: null,
};

/** The state after an event: a `state` event replaces it; ask events keep its asks current in between. */
function nextState(state: ControllerState | null, { event }: SequencedEvent): ControllerState | null {
  if (event.type === 'state') return event.state;
  if (state === null) return state;
  if (event.type === 'ask_opened' && !state.asks.some((ask) => ask.id === event.ask.id))
    return { ...state, asks: [...state.asks, event.ask] };
  if (event.type === 'ask_closed')
    return { ...state, asks: state.asks.filter((ask) => ask.id !== event.askId) };
  return state;
}

export function pageReducer(session: PageSession, action: PageAction): PageSession {
  switch (action.type) {
    case 'view':
      return {
        ...session,
        transcript: { seq: action.view.seq, entries: action.view.entries },
        state: action.view.state,
        catalog: action.view.catalog,
      };
    case 'event': {
      const { event } = action;
      const transcript = applyEvent(session.transcript, event);
      if (transcript === session.transcript) return session;
      return { ...session, transcript, state: nextState(session.state, event) };
    }
    case 'connection':
      return session.connection === action.connection
        ? session
        : { ...session, connection: action.connection };
    case 'catalog':
      return { ...session, catalog: action.catalog };
    case 'reset':
      return INITIAL_SESSION;
  }
}
