import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE, openSessionStore, SessionStoreError } from '../../src/session/store.js';
import { makeTempDir } from './temp-store.js';

function tempDir(): string {
  const dir = makeTempDir();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function fill(dir: string): void {
  const store = openSessionStore(dir);
  for (let i = 0; i < 300; i++) store.createSession({ projectRoot: `/project/${i}`, cwd: '/project' });
  store.close();
}

const DAMAGE: [string, (path: string, dir: string) => void, RegExp][] = [
  ['garbage', (path) => writeFileSync(path, 'not a database at all '.repeat(500)), /file is not a database/],
  [
    'a truncated file',
    (path, dir) => {
      fill(dir);
      truncateSync(path, Math.floor(statSync(path).size / 2));
    },
    /malformed/,
  ],
  [
    'a table missing',
    (path, dir) => {
      fill(dir);
      const db = new Database(path);
      db.exec('DROP TABLE approvals');
      db.close();
    },
    /table approvals missing/,
  ],
];

describe('a damaged session database', () => {
  it.each(DAMAGE)(
    '(%s) is moved aside with a timestamp, one warning names both paths, a new one starts',
    (_what, damage, cause) => {
      const dir = tempDir();
      const path = join(dir, DATABASE_FILE);
      damage(path, dir);
      const before = readFileSync(path);
      const warnings: string[] = [];
      const store = openSessionStore(dir, {
        warn: (m) => warnings.push(m),
        now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
      });
      onTestFinished(() => store.close());

      const aside = join(dir, `${DATABASE_FILE}.corrupt-2026-01-02T03-04-05-000Z`);
      expect(readFileSync(aside)).toEqual(before);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(path);
      expect(warnings[0]).toContain(aside);
      expect(warnings[0]).toMatch(cause);
      const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
      expect(store.getSession(session.id)?.id).toBe(session.id);
    },
  );
});

describe('a session database that cannot be used', () => {
  it('(a directory) is a SessionStoreError naming the path and what to do, and nothing is moved', () => {
    const dir = tempDir();
    mkdirSync(join(dir, DATABASE_FILE));
    expect(() => openSessionStore(dir, { warn: () => {} })).toThrow(SessionStoreError);
    expect(() => openSessionStore(dir)).toThrow(
      `cannot use the session database ${join(dir, DATABASE_FILE)}: it is a directory; move it away`,
    );
    expect(readdirSync(dir)).toEqual([DATABASE_FILE]);
  });
});

describe('tasks left behind by a cadre that died', () => {
  it('are marked interrupted when the store is next opened', () => {
    const dir = tempDir();
    // A pid that certainly belonged to a process that has exited.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const first = openSessionStore(dir, { pid: dead });
    const parent = first.createSession({ projectRoot: '/p', cwd: '/p' });
    const task = first.createTask({ parentSessionId: parent.id, prompt: 'p', status: 'running' });
    first.close();

    const next = openSessionStore(dir);
    onTestFinished(() => next.close());
    expect(next.getTask(task.id)).toMatchObject({ status: 'interrupted' });
  });
});
