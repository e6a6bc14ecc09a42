import { useCallback, useEffect, useMemo, useReducer, useState } from 'preact/hooks';
import type { UserAnswer } from '../../../controller/types.js';
import { ApiError, api } from '../api/client.js';
import { followSession } from '../api/stream.js';
import { AskDialog } from '../asks/AskDialog.js';
import { Transcript } from '../chat/Transcript.js';
import { Composer } from '../composer/Composer.js';
import { DEFAULT_PROFILE, Header } from '../header/Header.js';
import { SessionList } from '../sessions/SessionList.js';
import { SubagentPanel } from '../subagents/SubagentPanel.js';
import { TodoList } from '../todos/TodoList.js';
import { INITIAL_SESSION, pageReducer } from './session-state.js';

/** The open session shown is named in the address (`#s=<key>`), so a reload shows the same one. */
function keyFromHash(): string | null {
  return new URLSearchParams(location.hash.slice(1)).get('s');
}

interface Flash {
  id: number;
  text: string;
}

const FLASH_MS = 20_000;
let flashes = 0;

export function App() {
  const [key, setKey] = useState<string | null>(keyFromHash);
  const [attempt, setAttempt] = useState(0);
  const [session, dispatch] = useReducer(pageReducer, INITIAL_SESSION);
  const [flash, setFlash] = useState<Flash[]>([]);

  const say = useCallback((text: string) => {
    const id = ++flashes;
    setFlash((current) => [...current, { id, text }]);
    setTimeout(() => setFlash((current) => current.filter((f) => f.id !== id)), FLASH_MS);
  }, []);
  const sayError = useCallback(
    (error: unknown) => say(error instanceof Error ? error.message : String(error)),
    [say],
  );

  useEffect(() => {
    const onHash = () => setKey(keyFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (key !== null) return;
    api
      .sessions()
      .then((list) => {
        const first = list.open[0];
        if (first) location.hash = `s=${first.key}`;
      })
      .catch(sayError);
  }, [key, sayError]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `attempt` (Reconnect) follows the stream anew
  useEffect(() => {
    if (key === null) return;
    dispatch({ type: 'reset' });
    return followSession(key, {
      view: (view) => dispatch({ type: 'view', view }),
      event: (event) => {
        dispatch({ type: 'event', event });
        // `/agents reload` may change the profiles the selector lists.
        if (event.event.type === 'command_output' && event.event.command === 'agents')
          api.catalog(key).then((catalog) => dispatch({ type: 'catalog', catalog }), sayError);
      },
      connection: (connection) => dispatch({ type: 'connection', connection }),
    });
  }, [key, attempt, sayError]);

  const complete = useCallback(
    async (line: string) => (key === null ? [] : (await api.complete(key, line)).completions),
    [key],
  );

  const { state, catalog, transcript, connection } = session;
  const summaries = useMemo(
    () =>
      new Map<string, string>([
        ...(catalog?.commands ?? []).map((c): [string, string] => [c.name, c.summary]),
        ...(catalog?.profiles ?? []).map((p): [string, string] => [
          p.name,
          `run the ${p.name} profile on a task`,
        ]),
      ]),
    [catalog],
  );
  if (key === null || state === null || catalog === null) {
    return (
      <div class="loading" role="status">
        {connection === 'lost' ? 'Could not reach cadre web. Is it still running?' : 'Connecting…'}
        {flash.map((f) => (
          <p key={f.id}>{f.text}</p>
        ))}
      </div>
    );
  }

  const running = state.status === 'running';
  const ask = state.asks[0];
  const send = async (text: string) => {
    try {
      const { queued } = await api.submit(key, text);
      if (queued) say('A turn is running: your message waits in the queue and is sent when the turn ends.');
      return true;
    } catch (error) {
      sayError(error);
      return false;
    }
  };
  const answer = async (value: UserAnswer) => {
    if (!ask) return;
    await api.answer(key, ask.id, value).catch((error: unknown) => {
      // Answered in another tab meanwhile: the dialog is already on its way out.
      if (!(error instanceof ApiError && error.status === 409)) sayError(error);
    });
  };
  return (
    <div class="shell">
      <Header
        state={state}
        catalog={catalog}
        connection={connection}
        switchProfile={(name) =>
          api
            .profile(key, name === DEFAULT_PROFILE ? null : name)
            .then((result) => say(result.message), sayError)
        }
      />
      <div class="flash" role="alert">
        {flash.map((f) => (
          <p key={f.id}>
            {f.text}
            <button
              type="button"
              class="small"
              onClick={() => setFlash((c) => c.filter((x) => x.id !== f.id))}
            >
              Dismiss
            </button>
          </p>
        ))}
        {connection === 'lost' && (
          <p>
            The connection to cadre web is lost.
            <button type="button" class="small" onClick={() => setAttempt((n) => n + 1)}>
              Reconnect
            </button>
          </p>
        )}
      </div>
      <main class="layout">
        <section class="chat" aria-label="Chat">
          <Transcript entries={transcript.entries} />
          {ask && <AskDialog key={ask.id} ask={ask} waiting={state.asks.length - 1} answer={answer} />}
          <Composer
            running={running}
            summaries={summaries}
            queue={state.queue}
            complete={complete}
            send={send}
            stop={() => void api.interrupt(key).catch(sayError)}
            cancelQueued={(id) => void api.cancelQueued(key, id).catch(sayError)}
          />
        </section>
        <aside class="side" aria-label="Session">
          <SubagentPanel
            subagents={state.subagents}
            batches={state.batches}
            kill={(taskId) => void api.kill(key, taskId).then((result) => say(result.message), sayError)}
          />
          <TodoList todos={state.todos} />
          <SessionList
            key={state.sessionId}
            currentSessionId={state.sessionId}
            open={(sessionId) =>
              api.reopen(sessionId).then(({ key: opened }) => {
                location.hash = `s=${opened}`;
              }, sayError)
            }
          />
        </aside>
      </main>
    </div>
  );
}
