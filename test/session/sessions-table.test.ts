import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../src/session/types.js';
import { useTempStore } from './temp-store.js';

describe('sessions table', () => {
  const temp = useTempStore();

  it('creates a session and reads it back with every field', () => {
    const { store } = temp();
    const created = store.createSession({
      projectRoot: '/repo',
      cwd: '/repo/src',
      agent: 'reviewer',
      model: 'fast',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{26}$/),
      parentId: null,
      createdAt: expect.any(Number),
      updatedAt: created.createdAt,
      projectRoot: '/repo',
      cwd: '/repo/src',
      agent: 'reviewer',
      model: 'fast',
      title: null,
      status: 'active',
    });
    expect(store.getSession(created.id)).toEqual(created);
  });

  it('returns undefined for an unknown session id', () => {
    expect(temp().store.getSession('nope')).toBeUndefined();
  });

  it('gives ids that sort in creation order', () => {
    const { store, clock } = temp();
    const ids = [1, 2, 3].map(() => {
      clock.advance(1000);
      return store.createSession({ projectRoot: '/repo', cwd: '/repo' }).id;
    });
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('updates only the fields given and bumps updated_at', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/repo', cwd: '/repo', agent: 'a', model: 'm' });
    const updated = store.updateSession(session.id, { status: 'completed', agent: undefined, model: null });
    expect(updated).toMatchObject({ agent: 'a', model: null, status: 'completed' });
    expect(updated.updatedAt).toBeGreaterThan(session.updatedAt);
    expect(store.getSession(session.id)).toEqual(updated);
  });

  it('refuses to update an unknown session', () => {
    expect(() => temp().store.updateSession('missing', { status: 'completed' })).toThrow(
      /no session with id "missing"/,
    );
  });

  it('refuses a status outside the known set', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const status = 'paused' as SessionStatus;
    expect(() => store.updateSession(session.id, { status })).toThrow(/invalid session status "paused"/);
  });

  it('lastSession picks the most recently updated top-level session of that project only', () => {
    const { store } = temp();
    const older = store.createSession({ projectRoot: '/alpha', cwd: '/alpha' });
    const newer = store.createSession({ projectRoot: '/alpha', cwd: '/alpha' });
    store.createSession({ projectRoot: '/beta', cwd: '/beta' });
    // A child session is newer still but must not be what --continue resumes.
    store.createSession({ projectRoot: '/alpha', cwd: '/alpha', parentId: newer.id });
    expect(store.lastSession('/alpha')?.id).toBe(newer.id);

    // Writing to the older session makes it the most recent.
    store.appendMessages(older.id, [{ role: 'user', content: 'again' }], 1);
    expect(store.lastSession('/alpha')?.id).toBe(older.id);
    expect(store.lastSession('/gamma')).toBeUndefined();
  });

  it('lists sessions newest first, filtered by project, limited, children only on request', () => {
    const { store } = temp();
    const a1 = store.createSession({ projectRoot: '/a', cwd: '/a' });
    const b1 = store.createSession({ projectRoot: '/b', cwd: '/b' });
    const a2 = store.createSession({ projectRoot: '/a', cwd: '/a' });
    const child = store.createSession({ projectRoot: '/a', cwd: '/a', parentId: a2.id });

    expect(store.listSessions().map((s) => s.id)).toEqual([a2.id, b1.id, a1.id]);
    expect(store.listSessions({ projectRoot: '/a' }).map((s) => s.id)).toEqual([a2.id, a1.id]);
    expect(store.listSessions({ limit: 1 }).map((s) => s.id)).toEqual([a2.id]);
    expect(store.listSessions({ projectRoot: '/a', includeChildren: true }).map((s) => s.id)).toEqual([
      child.id,
      a2.id,
      a1.id,
    ]);
  });

  it('lists child sessions of a parent, oldest first', () => {
    const { store } = temp();
    const parent = store.createSession({ projectRoot: '/a', cwd: '/a' });
    const first = store.createSession({ projectRoot: '/a', cwd: '/a', parentId: parent.id, agent: 'x' });
    const second = store.createSession({ projectRoot: '/a', cwd: '/a', parentId: parent.id, agent: 'y' });
    const children = store.childSessions(parent.id);
    expect(children.map((s) => s.id)).toEqual([first.id, second.id]);
    expect(children.every((s) => s.parentId === parent.id)).toBe(true);
    expect(store.childSessions(first.id)).toEqual([]);
  });

  it('refuses a child session whose parent does not exist', () => {
    expect(() => temp().store.createSession({ projectRoot: '/a', cwd: '/a', parentId: 'ghost' })).toThrow(
      /FOREIGN KEY/,
    );
  });
});
