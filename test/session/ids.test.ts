import { describe, expect, it } from 'vitest';
import { shortRandomId, sortableId } from '../../src/session/ids.js';

describe('ids', () => {
  it('sortableId orders by time, whatever the random part', () => {
    const times = [0, 1, 31, 32, 1_700_000_000_000, 1_700_000_000_001, 2 ** 48 - 1];
    const ids = times.map((time) => sortableId(time));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
  });

  it('sortableId differs between two ids of the same millisecond', () => {
    expect(sortableId(42)).not.toBe(sortableId(42));
    expect(sortableId(42).slice(0, 10)).toBe(sortableId(42).slice(0, 10));
  });

  it('shortRandomId is 12 hex characters, different each time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => shortRandomId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}$/);
  });
});
