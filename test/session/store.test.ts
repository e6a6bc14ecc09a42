import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/session/schema.js';
import { DATABASE_FILE, openSessionStore, type SessionStore } from '../../src/session/store.js';
import { makeTempDir } from './temp-store.js';

const CHILD_SCRIPT = fileURLToPath(new URL('./store-child.ts', import.meta.url));

interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(args: string[]): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('session store file', () => {
  const dirs: string[] = [];
  const stores: SessionStore[] = [];

  function tempDir(): string {
    const dir = makeTempDir();
    dirs.push(dir);
    return dir;
  }

  function open(dir: string): SessionStore {
    const store = openSessionStore(dir);
    stores.push(store);
    return store;
  }

  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('creates the directory and a WAL-mode database at the current schema version', () => {
    const dir = join(tempDir(), 'nested', 'config');
    const store = open(dir);
    expect(store.path).toBe(join(dir, DATABASE_FILE));
    const raw = new Database(store.path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('keeps everything across close and re-open, and re-opening does not migrate again', () => {
    const dir = tempDir();
    const first = open(dir);
    const session = first.createSession({ projectRoot: '/p', cwd: '/p' });
    first.appendMessages(session.id, [{ role: 'user', content: 'remember me' }], 1);
    first.addApproval(session.id, 'read');
    const task = first.createTask({ parentSessionId: session.id, prompt: 'p', status: 'completed' });
    const ref = first.storeBlob(session.id, 'kept');
    first.close();
    first.close();

    const second = open(dir);
    expect(second.lastSession('/p')?.id).toBe(session.id);
    expect(second.loadMessages(session.id)).toEqual([{ role: 'user', content: 'remember me' }]);
    expect(second.approvals(session.id)).toEqual(['read']);
    expect(second.getTask(task.id)?.status).toBe('completed');
    expect(second.readBlob(ref)).toBe('kept');
  });

  it('refuses a database written by a newer schema', () => {
    const dir = tempDir();
    open(dir).close();
    const raw = new Database(join(dir, DATABASE_FILE));
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openSessionStore(dir)).toThrow(/newer than this cadre understands/);
  });

  it('lets two connections on one file both write and see each other’s writes', () => {
    const dir = tempDir();
    const mine = open(dir);
    const theirs = open(dir);
    const session = mine.createSession({ projectRoot: '/p', cwd: '/p' });

    theirs.appendMessages(session.id, [{ role: 'user', content: 'from the second process' }], 1);
    mine.appendMessages(session.id, [{ role: 'assistant', content: 'from the first' }], 2);
    const task = theirs.createTask({ parentSessionId: session.id, prompt: 'bg', background: true });
    mine.updateTask(task.id, { status: 'running' });
    theirs.recordUsage(session.id, 1, { inputTokens: 5, outputTokens: 1 });
    mine.recordUsage(session.id, 2, { inputTokens: 7, outputTokens: 2 });

    for (const store of [mine, theirs]) {
      expect(store.loadMessages(session.id).map((message) => message.content)).toEqual([
        'from the second process',
        'from the first',
      ]);
      expect(store.getTask(task.id)?.status).toBe('running');
      expect(store.sessionUsage(session.id).inputTokens).toBe(12);
    }
  });

  it('serialises concurrent writers in separate processes without losing a turn', async () => {
    const dir = tempDir();
    const store = open(dir);
    const session = store.createSession({ projectRoot: '/p', cwd: '/p' });
    const turnsEach = 150;

    const exits = await Promise.all([
      runChild(['append', dir, session.id, String(turnsEach)]),
      runChild(['append', dir, session.id, String(turnsEach)]),
    ]);
    for (const exit of exits) expect(exit).toMatchObject({ code: 0, stderr: '' });

    const turns = store.loadTurns(session.id);
    expect(turns).toHaveLength(2 * turnsEach);
    // Each process's own turns stay in its order.
    const byProcess = new Map<string, number[]>();
    for (const { turn, message } of turns) {
      const pid = String(message.content).split(' ')[1];
      byProcess.set(pid, [...(byProcess.get(pid) ?? []), turn]);
    }
    const ascending = Array.from({ length: turnsEach }, (_, index) => index + 1);
    expect([...byProcess.values()]).toEqual([ascending, ascending]);
  });

  it('keeps both completed turns of a process killed mid-run, drops the turn in flight, marks its task interrupted', async () => {
    const dir = tempDir();
    const exit = await runChild(['kill', dir]);
    expect(exit.signal).toBe('SIGKILL');
    const sessionId = exit.stdout.trim();
    // The commits were never checkpointed into the main file: they survive through the WAL.
    expect(existsSync(join(dir, `${DATABASE_FILE}-wal`))).toBe(true);

    const store = open(dir);
    expect(store.loadTurns(sessionId)).toEqual([
      { turn: 1, message: { role: 'user', content: 'turn one' } },
      { turn: 2, message: { role: 'assistant', content: [{ type: 'text', text: 'turn two' }] } },
    ]);
    expect(store.lastTurn(sessionId)).toBe(2);
    expect(store.sessionUsage(sessionId)).toMatchObject({ inputTokens: 30, outputTokens: 3 });
    // Opening the store marked the dead process's running task interrupted.
    const [orphan] = store.listTasks({ parentSessionId: sessionId });
    expect(orphan).toMatchObject({ parentSessionId: sessionId, status: 'interrupted' });
    expect(store.interruptOrphanedTasks()).toEqual([]);
    // The dead process's write lock is gone: this process can write.
    store.appendMessages(sessionId, [{ role: 'user', content: 'resumed' }], 3);
    expect(store.lastTurn(sessionId)).toBe(3);
  });
});
