import { join } from 'node:path';
import { configDir } from '../config/load.js';
import { DATABASE_FILE, SessionStoreError, sessionStoreFailure } from '../session/store.js';

/** The one line for a session database that failed at open or during the run (SPEC 15, exit 1). */
export function storeFailureLine(error: Error): string {
  if (error instanceof SessionStoreError || error.name === 'SessionStoreError') return error.message;
  return sessionStoreFailure(error, join(configDir(), DATABASE_FILE)).message;
}
