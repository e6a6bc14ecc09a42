import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';
import { makeTempDir } from './temp-store.js';

const STORE_MODULE = fileURLToPath(new URL('../../src/session/store.ts', import.meta.url));

/** Issue 17: a turn's records are written after its next model request is on its way. */
describe('deferred writes', () => {
  const dirs: string[] = [];
  const stores: SessionStore[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = (dir = makeTempDir()) => {
    if (!dirs.includes(dir)) dirs.push(dir);
    const store = openSessionStore(dir);
    stores.push(store);
    return { store, dir };
  };
  const userTurn = (store: SessionStore, sessionId: string, turn: number) =>
    store.writeLater((s) => s.appendMessages(sessionId, [{ role: 'user', content: `turn ${turn}` }], turn));
  const texts = (store: SessionStore, sessionId: string) =>
    store.loadMessages(sessionId).map((m) => m.content);

  it('run in order at the next check phase, and before any other call of the store', async () => {
    const { store, dir } = open();
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    userTurn(store, session.id, 1);
    userTurn(store, session.id, 2);
    const other = open(dir).store;
    expect(other.loadMessages(session.id)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(texts(other, session.id)).toEqual(['turn 1', 'turn 2']);
    userTurn(store, session.id, 3);
    expect(texts(store, session.id)).toEqual(['turn 1', 'turn 2', 'turn 3']);
  });

  it('a failed write drops the ones queued after it and fails the next call once', async () => {
    const { store } = open();
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    userTurn(store, session.id, 1);
    store.writeLater(() => {
      throw new Error('disk full');
    });
    userTurn(store, session.id, 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => store.flushWrites()).toThrow('disk full');
    expect(texts(store, session.id)).toEqual(['turn 1']);
    store.writeLater(() => {
      throw new Error('disk full again');
    });
    expect(() => store.getSession(session.id)).toThrow('disk full again');
    expect(store.getSession(session.id)?.id).toBe(session.id);
  });

  it('are written by close, and by a process that exits before its next check phase', () => {
    const { store, dir } = open();
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    userTurn(store, session.id, 1);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { openSessionStore } = await import(${JSON.stringify(STORE_MODULE)});
         const store = openSessionStore(${JSON.stringify(dir)});
         store.writeLater((s) => s.appendMessages(${JSON.stringify(session.id)}, [{ role: 'user', content: 'turn 2' }], 2));
         process.exit(0);`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(texts(open(dir).store, session.id)).toEqual(['turn 1', 'turn 2']);
  });
});
