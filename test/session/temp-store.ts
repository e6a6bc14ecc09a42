import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openSessionStore, type SessionStore } from '../../src/session/store.js';

/** A clock that moves 1 ms per reading, so every write gets a distinct, increasing timestamp. */
export interface SteppingClock {
  now: () => number;
  advance(ms: number): void;
}

export function steppingClock(start = 1_700_000_000_000): SteppingClock {
  let time = start;
  return {
    now: () => time++,
    advance(ms) {
      time += ms;
    },
  };
}

export function makeTempDir(): string {
  return mkdtempSync(join(tmpdir(), 'cadre-session-'));
}

export interface TempStore {
  dir: string;
  clock: SteppingClock;
  store: SessionStore;
}

/** A fresh store in a fresh temporary directory for each test, closed and removed afterwards. */
export function useTempStore(): () => TempStore {
  let current: TempStore | undefined;
  beforeEach(() => {
    const dir = makeTempDir();
    const clock = steppingClock();
    current = { dir, clock, store: openSessionStore(dir, { now: clock.now }) };
  });
  afterEach(() => {
    current?.store.close();
    if (current) rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('useTempStore() is only available inside a test');
    return current;
  };
}
