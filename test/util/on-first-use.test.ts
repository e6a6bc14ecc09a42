import { describe, expect, it } from 'vitest';
import { builtOnFirstUse } from '../../src/util/on-first-use.js';

describe('builtOnFirstUse', () => {
  it('builds at the first look at anything, once, and hands out the built values', () => {
    let builds = 0;
    const real = { spawn: () => 'spawned', value: 1 };
    const standIn = builtOnFirstUse(() => {
      builds++;
      return real;
    });
    expect(builds).toBe(0);
    expect(standIn.spawn).toBe(real.spawn);
    expect(standIn.spawn()).toBe('spawned');
    expect('value' in standIn).toBe(true);
    expect(Object.keys(standIn)).toEqual(['spawn', 'value']);
    expect({ ...standIn }).toEqual(real);
    expect(builds).toBe(1);
  });

  it('writes to the built object', () => {
    const real = { value: 1 };
    const standIn = builtOnFirstUse(() => real);
    standIn.value = 2;
    expect(real.value).toBe(2);
    expect(Object.getPrototypeOf(standIn)).toBe(Object.prototype);
  });
});
