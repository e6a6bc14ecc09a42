import { useCallback, useEffect, useState } from 'preact/hooks';
import type { PastSession } from '../../server/hub.js';
import { api } from '../api/client.js';

interface Props {
  /** The session id shown now (it changes with /clear). */
  currentSessionId: string;
  open(sessionId: string): void;
}

function when(epochMs: number): string {
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** This project's stored sessions, newest first; any of them reopens here with its conversation. */
export function SessionList({ currentSessionId, open }: Props) {
  const [sessions, setSessions] = useState<PastSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(
    () =>
      api
        .sessions()
        .then((list) => {
          setSessions(list.past);
          setError(null);
        })
        .catch((failure: Error) => setError(failure.message)),
    [],
  );
  // Mounted afresh for each shown session (the parent keys it by the session id).
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <details
        onToggle={(event) => {
          if ((event.currentTarget as HTMLDetailsElement).open) void refresh();
        }}
      >
        <summary>
          <h2 id="sessions-title">Past sessions</h2>
        </summary>
        {error && <p class="notice notice-error">{error}</p>}
        {sessions?.length === 0 && <p class="dim">No stored sessions in this project yet.</p>}
        <ul class="sessions">
          {sessions?.map((session) => {
            const current = session.id === currentSessionId;
            return (
              <li key={session.id} class={current ? 'current' : undefined}>
                <button
                  type="button"
                  class="link"
                  disabled={current}
                  aria-current={current ? 'page' : undefined}
                  onClick={() => open(session.id)}
                >
                  {session.title ?? '(no messages yet)'}
                </button>
                <span class="dim">
                  {when(session.updatedAt)} · {session.agent ?? 'default'} · {session.status}
                  {current ? ' · shown' : session.openKey ? ' · open' : ''}
                </span>
              </li>
            );
          })}
        </ul>
      </details>
    </section>
  );
}
