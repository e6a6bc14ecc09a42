/**
 * A second cadre process for the store tests, run with `node --import tsx`:
 *   store-child.ts kill <dir>                  two turns, a third left uncommitted, then SIGKILL
 *   store-child.ts append <dir> <session> <n>  n one-message turns, as fast as possible
 */
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE, openSessionStore } from '../../src/session/store.js';

const [mode, dir, sessionId, count] = process.argv.slice(2);

if (mode === 'kill') {
  const store = openSessionStore(dir);
  const session = store.createSession({ projectRoot: '/killed', cwd: '/killed' });
  writeSync(1, `${session.id}\n`);
  store.appendMessages(session.id, [{ role: 'user', content: 'turn one' }], 1);
  store.recordUsage(session.id, 1, { inputTokens: 10, outputTokens: 1 });
  store.appendMessages(session.id, [{ role: 'assistant', content: [{ type: 'text', text: 'turn two' }] }], 2);
  store.recordUsage(session.id, 2, { inputTokens: 20, outputTokens: 2 });
  store.createTask({ parentSessionId: session.id, prompt: 'never finishes', status: 'running' });

  // The turn in flight: written inside a transaction that never commits.
  const raw = new Database(join(dir, DATABASE_FILE));
  raw.exec('BEGIN IMMEDIATE');
  raw
    .prepare('INSERT INTO messages (session_id, turn, role, message, created_at) VALUES (?, 3, ?, ?, 0)')
    .run(session.id, 'user', JSON.stringify({ role: 'user', content: 'turn three, in flight' }));
  process.kill(process.pid, 'SIGKILL');
} else if (mode === 'append') {
  const store = openSessionStore(dir);
  for (let turn = 1; turn <= Number(count); turn++) {
    store.appendMessages(sessionId, [{ role: 'user', content: `pid ${process.pid} turn ${turn}` }], turn);
  }
  store.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}
