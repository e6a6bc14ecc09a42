import { randomBytes } from 'node:crypto';
import type { RuntimeFlags } from '../../agent/runtime.js';
import type { Workspace } from '../../config/workspace.js';
import { SessionController, type SubmitHandle } from '../../controller/session-controller.js';
import type { SessionStore } from '../../session/store.js';
import { entriesFromMessages } from '../transcript/from-messages.js';
import { applyEvent } from '../transcript/reduce.js';
import type { Transcript } from '../transcript/types.js';

/** One live session the server serves: its controller and the transcript pages load before resuming. */
export interface OpenSession {
  /** Stable for the server's life, unlike the session id, which `/clear` changes. */
  key: string;
  controller: SessionController;
  transcript: Transcript;
}

export interface PastSession {
  id: string;
  title: string | null;
  agent: string | null;
  model: string | null;
  updatedAt: number;
  status: string;
  /** The key of the open session showing it, when one does. */
  openKey: string | null;
}

export interface HubOptions {
  workspace: Workspace;
  flags: RuntimeFlags;
  store: SessionStore;
}

/**
 * The controllers this server holds: the session it started with and every past session reopened from the
 * page. It keeps, per controller, the transcript built from its events; every decision stays the
 * controller's.
 */
export class SessionHub {
  private readonly sessions = new Map<string, OpenSession>();
  private readonly stops: (() => void)[] = [];
  private readonly opening = new Map<string, Promise<OpenSession>>();

  constructor(private readonly options: HubOptions) {}

  /** Opens the first session with the command line's own flags (`--continue`/`--resume` included). */
  async start(): Promise<OpenSession> {
    return this.adopt(await this.openController(this.options.flags));
  }

  get(key: string): OpenSession | undefined {
    return this.sessions.get(key);
  }

  list(): OpenSession[] {
    return [...this.sessions.values()];
  }

  /** The open session showing a stored one, else that session reopened. Throws ConfigError for an unknown id. */
  reopen(sessionId: string): Promise<OpenSession> {
    const open = this.list().find((s) => s.controller.sessionId === sessionId);
    if (open) return Promise.resolve(open);
    let pending = this.opening.get(sessionId);
    if (!pending) {
      const flags: RuntimeFlags = { ...this.options.flags, continue: false, resume: sessionId };
      pending = this.openController(flags)
        .then((controller) => this.adopt(controller))
        .finally(() => this.opening.delete(sessionId));
      this.opening.set(sessionId, pending);
    }
    return pending;
  }

  /** The project's stored sessions, newest first, each marked with the open session showing it. */
  past(): PastSession[] {
    const { projectRoot } = this.options.workspace.loaded;
    const openBySession = new Map(this.list().map((s) => [s.controller.sessionId, s.key]));
    return this.options.store.listSessions({ projectRoot, limit: 50 }).map((record) => ({
      id: record.id,
      title: record.title,
      agent: record.agent,
      model: record.model,
      updatedAt: record.updatedAt,
      status: record.status,
      openKey: openBySession.get(record.id) ?? null,
    }));
  }

  /** A prompt or command line for `session`; `/quit` ends it as in the other clients: review (when on), closed. */
  submit(session: OpenSession, text: string): SubmitHandle {
    const handle = session.controller.submit(text);
    void handle.outcome.then((outcome) => (outcome.quit ? session.controller.close() : undefined));
    return handle;
  }

  /** Closes every controller (interrupting turns; subagents follow their retention rules). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    for (const stop of this.stops.splice(0)) stop();
    await Promise.allSettled(this.list().map((s) => s.controller.close()));
  }

  private openController(flags: RuntimeFlags): Promise<SessionController> {
    const { workspace, store } = this.options;
    return SessionController.open({ workspace, flags, store, interactive: true });
  }

  private adopt(controller: SessionController): OpenSession {
    const session: OpenSession = {
      key: randomBytes(6).toString('base64url'),
      controller,
      transcript: { seq: 0, entries: entriesFromMessages(controller.messages()) },
    };
    // From the first event kept, so the transcript and the sequence ids a page resumes after agree.
    const subscription = controller.subscribe(
      (event) => {
        session.transcript = applyEvent(session.transcript, event);
      },
      { after: 0 },
    );
    this.stops.push(() => subscription.close());
    this.sessions.set(session.key, session);
    return session;
  }
}
