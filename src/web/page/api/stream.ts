import type { SequencedEvent } from '../../../controller/types.js';
import type { SessionView } from '../../server/view.js';
import type { Connection } from '../header/Header.js';

export interface StreamHandlers {
  view(view: SessionView): void;
  event(event: SequencedEvent): void;
  connection(state: Connection): void;
}

/**
 * Follows one session's event stream. EventSource reconnects by itself and sends the last event id it saw,
 * so the server resumes exactly after it (or sends a fresh `view` when it cannot). Returns a closer.
 */
export function followSession(key: string, handlers: StreamHandlers): () => void {
  const source = new EventSource(`/api/s/${encodeURIComponent(key)}/events`);
  source.addEventListener('view', (message) =>
    handlers.view(JSON.parse((message as MessageEvent<string>).data)),
  );
  source.onmessage = (message) => handlers.event(JSON.parse(message.data));
  source.onopen = () => handlers.connection('live');
  source.onerror = () =>
    handlers.connection(source.readyState === EventSource.CLOSED ? 'lost' : 'reconnecting');
  return () => source.close();
}
