import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { TestProject } from '../support/cli.js';
import { type LiveCadre, startCadre } from './harness.js';

export interface LiveWeb extends LiveCadre {
  /** The printed URL, one-time token included. */
  url: string;
  port: number;
  token: string;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** SIGINT, as Ctrl-C does; resolves with the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `cadre web --port 0 …` in `project`, once it has printed its URL. Killed when the test ends. */
export async function startWeb(project: TestProject, args: string[] = []): Promise<LiveWeb> {
  const live = startCadre(project, ['web', '--port', '0', ...args]);
  const [, url, port, token] = await live.waitForStdout(/Open (http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+))/);
  return {
    ...live,
    url,
    port: Number(port),
    token,
    origin: `http://127.0.0.1:${port}`,
    stop() {
      live.child.kill('SIGINT');
      return live.exited;
    },
  };
}

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpCall {
  method?: string;
  path: string;
  /** Sent as given; `host` defaults to `127.0.0.1:<port>`. */
  headers?: Record<string, string>;
  body?: string;
}

/** One plain HTTP request with full control of the headers (Host included), as any client could send. */
export function http(port: number, call: HttpCall): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: call.method ?? 'GET',
        path: call.path,
        headers: { host: `127.0.0.1:${port}`, ...call.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Exchanges the one-time token for the session cookie, as the browser does on first visit. */
export async function signIn(web: LiveWeb): Promise<string> {
  const reply = await http(web.port, { path: `/?token=${web.token}` });
  const cookie = reply.headers['set-cookie']?.[0];
  if (reply.status !== 303 || !cookie) throw new Error(`sign-in failed: ${reply.status} ${reply.body}`);
  return cookie.split(';')[0];
}

export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads a session's event stream until `until` accepts what has arrived, then closes it. Headers are the
 * caller's (cookie, Origin or Sec-Fetch-Site, Last-Event-ID).
 */
export function readEvents(
  port: number,
  path: string,
  headers: Record<string, string>,
  until: (messages: SseMessage[]) => boolean,
): Promise<{ status: number; messages: SseMessage[] }> {
  return new Promise((resolve, reject) => {
    const messages: SseMessage[] = [];
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve({ status: res.statusCode ?? 0, messages });
          return;
        }
        let buffer = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
            const message: SseMessage = { event: 'message', data: '' };
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) message.event = line.slice(7);
              else if (line.startsWith('id: ')) message.id = line.slice(4);
              else if (line.startsWith('data: ')) message.data += line.slice(6);
            }
            if (block.startsWith(':')) continue;
            messages.push(message);
            if (until(messages)) {
              req.destroy();
              resolve({ status: 200, messages });
              return;
            }
          }
        });
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}
