import { shortRandomId } from './ids.js';
import type { StoreContext } from './sql.js';

/** Results larger than this are kept whole as a blob and shown to the model as head + tail + ref (SPEC 7.3). */
export const BLOB_THRESHOLD_BYTES = 8 * 1024;

const REF_PREFIX = 'blob-';

export interface BlobsTable {
  /** Keeps `text` whole, whatever its size; the ref is what the model is given to read it back. */
  storeBlob(sessionId: string, text: string): string;
  /** Undefined for an unknown ref. */
  readBlob(ref: string): string | undefined;
}

export function blobsTable({ sql, now }: StoreContext): BlobsTable {
  return {
    storeBlob(sessionId, text) {
      const ref = REF_PREFIX + shortRandomId();
      sql.run(
        'INSERT INTO blobs (ref, session_id, bytes, text, created_at) VALUES (?, ?, ?, ?, ?)',
        ref,
        sessionId,
        Buffer.byteLength(text, 'utf8'),
        text,
        now(),
      );
      return ref;
    },

    readBlob(ref) {
      return sql.get<{ text: string }>('SELECT text FROM blobs WHERE ref = ?', ref)?.text;
    },
  };
}
