import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { SequencedEvent } from '../../controller/types.js';
import type { OpenSession } from './hub.js';
import { viewOf } from './view.js';

/** Comment lines keep idle connections (and proxies) from timing out. */
const HEARTBEAT_MS = 15_000;

/** The sequence id a reconnecting page resumes after: EventSource's Last-Event-ID, else `?after=`. */
function resumePoint(c: Context): number | undefined {
  const raw = c.req.header('last-event-id') ?? c.req.query('after');
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * The live stream of one session as Server-Sent Events, each carrying its controller sequence id. A page
 * that reconnects gets exactly the events after the last one it saw; when those are gone (or on first
 * connect) it gets a `view` event (transcript and state as of a sequence id) and the live events after it.
 */
export function eventStream(c: Context, session: OpenSession, streams: Set<SSEStreamingApi>): Response {
  return streamSSE(c, async (stream) => {
    streams.add(stream);
    const outbox: { event?: string; id: string; data: string }[] = [];
    let wake: (() => void) | undefined;
    const send = (message: { event?: string; id: string; data: string }) => {
      outbox.push(message);
      wake?.();
    };
    const onEvent = (event: SequencedEvent) => send({ id: String(event.seq), data: JSON.stringify(event) });

    const after = resumePoint(c);
    const subscription = session.controller.subscribe(onEvent, after === undefined ? {} : { after });
    if (after === undefined || !subscription.resumed) {
      const view = viewOf(session, subscription.snapshot);
      send({ event: 'view', id: String(view.seq), data: JSON.stringify(view) });
    }
    const heartbeat = setInterval(() => {
      void stream.write(': keep-alive\n\n').catch(() => undefined);
    }, HEARTBEAT_MS);
    let ended = false;
    const finished = new Promise<void>((resolve) => {
      stream.onAbort(() => {
        ended = true;
        resolve();
        wake?.();
      });
    });
    try {
      while (!ended && !stream.closed) {
        const message = outbox.shift();
        if (message) {
          await stream.writeSSE(message);
          continue;
        }
        await Promise.race([finished, new Promise<void>((resolve) => (wake = resolve))]);
        wake = undefined;
      }
    } finally {
      clearInterval(heartbeat);
      subscription.close();
      streams.delete(stream);
    }
  });
}
