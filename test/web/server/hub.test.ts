import { describe, expect, it, onTestFinished } from 'vitest';
import { openWorkspace } from '../../../src/config/workspace.js';
import { openSessionStore } from '../../../src/session/store.js';
import { SessionHub } from '../../../src/web/server/hub.js';
import { reviewedWriteProject } from '../../e2e/harness.js';

describe('the web server’s sessions', () => {
  it('/quit ends a session: its transcript shows the session review (session_review on), then it is closed', async () => {
    const project = await reviewedWriteProject();
    const env = { ...process.env, CADRE_CONFIG_DIR: project.configDir };
    const store = openSessionStore(project.configDir);
    const hub = new SessionHub({
      workspace: openWorkspace(project.dir, env, { trustProject: true }),
      flags: { safety: 'full', yes: false },
      store,
    });
    onTestFinished(async () => {
      await hub.close();
      store.close();
    });
    const session = await hub.start();
    expect((await hub.submit(session, 'add a greeting').outcome).text).toBe('wrote it');
    const closed = new Promise<void>((resolve) => {
      session.controller.subscribe(({ event }) => {
        if (event.type === 'closed') resolve();
      });
    });
    expect((await hub.submit(session, '/quit').outcome).quit).toBe(true);
    await closed;
    expect(session.controller.snapshot().status).toBe('closed');
    const review = session.transcript.entries.find((entry) => entry.kind === 'review');
    expect(review).toEqual({
      kind: 'review',
      id: expect.any(String),
      reviewer: 'fake · scripted-model',
      files: ['new.txt'],
      findings: '1. new.txt:1 (low) the greeting is untested',
    });
  });
});
