import type { UserAnswer } from '../../../controller/types.js';
import type { PastSession } from '../../server/hub.js';
import type { Catalog } from '../../server/view.js';

/** A refusal or failure from the server, with the message it gave. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok)
    throw new ApiError(payload.error ?? `${response.status} ${response.statusText}`, response.status);
  return payload as T;
}

export interface SessionsList {
  open: { key: string; sessionId: string }[];
  past: PastSession[];
}

/** The routes of src/web/server/app.ts, one function each. */
export const api = {
  sessions: () => call<SessionsList>('GET', '/api/sessions'),
  reopen: (sessionId: string) => call<{ key: string }>('POST', '/api/sessions', { sessionId }),
  catalog: (key: string) => call<Catalog>('GET', `/api/s/${key}/catalog`),
  complete: (key: string, line: string) =>
    call<{ completions: string[] }>('GET', `/api/s/${key}/complete?line=${encodeURIComponent(line)}`),
  submit: (key: string, text: string) =>
    call<{ id: string; queued: boolean }>('POST', `/api/s/${key}/submit`, { text }),
  interrupt: (key: string) => call<{ interrupted: boolean }>('POST', `/api/s/${key}/interrupt`),
  answer: (key: string, askId: string, answer: UserAnswer) =>
    call<{ ok: true }>('POST', `/api/s/${key}/answer`, { askId, answer }),
  profile: (key: string, name: string | null) =>
    call<{ message: string }>('POST', `/api/s/${key}/profile`, { name }),
  kill: (key: string, taskId: string) => call<{ message: string }>('POST', `/api/s/${key}/kill`, { taskId }),
  cancelQueued: (key: string, promptId: string) =>
    call<{ ok: true }>('POST', `/api/s/${key}/queue/cancel`, { promptId }),
};
