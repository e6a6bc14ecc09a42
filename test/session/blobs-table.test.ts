import { describe, expect, it } from 'vitest';
import { BLOB_THRESHOLD_BYTES } from '../../src/session/blobs-table.js';
import { useTempStore } from './temp-store.js';

describe('blobs table', () => {
  const temp = useTempStore();

  it('keeps a large result whole and reads it back by ref', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const text = `héad ${'z'.repeat(BLOB_THRESHOLD_BYTES * 64)} tail`;
    const ref = store.storeBlob(session.id, text);
    const other = store.storeBlob(session.id, 'small');

    expect(ref).toMatch(/^blob-[0-9a-f]{12}$/);
    expect(other).not.toBe(ref);
    expect(store.readBlob(ref)).toBe(text);
    expect(store.readBlob(other)).toBe('small');
  });

  it('returns undefined for an unknown ref', () => {
    expect(temp().store.readBlob('blob-000000000000')).toBeUndefined();
  });
});
