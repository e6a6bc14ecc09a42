import { describe, expect, it } from 'vitest';
import { Dispatches } from '../../src/remote/dispatches.js';

describe('Dispatches', () => {
  it('brings tasks that end together home together, once none ended for the window and no dispatch is pending', async () => {
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
    // Nothing pending: a later ending comes home once no other has ended for the window.
    const started = Date.now();
    const third = dispatches.quiet();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const fourth = dispatches.quiet();
    await Promise.all([third, fourth]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });
});
