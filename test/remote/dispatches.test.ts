import { describe, expect, it } from 'vitest';
import { Dispatches } from '../../src/remote/dispatches.js';

describe('Dispatches', () => {
  it('brings tasks that end together home together, after the window, once no dispatch is pending', async () => {
    const dispatches = new Dispatches(50);
    const order: string[] = [];
    const enqueued = dispatches.begin();
    const first = dispatches.quiet().then(() => order.push('a home'));
    const second = dispatches.quiet().then(() => order.push('b home'));
    // The window passes while the next task is still being enqueued: the work waits for it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual([]);
    order.push('enqueued');
    enqueued();
    enqueued();
    await Promise.all([first, second]);
    expect(order).toEqual(['enqueued', 'a home', 'b home']);
    // Nothing pending: a later ending comes home once its own window has passed.
    const started = Date.now();
    await dispatches.quiet();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
