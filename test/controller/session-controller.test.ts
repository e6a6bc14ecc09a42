import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gate, MAIN_SYSTEM, openTestSession } from './harness.js';

describe('SessionController turns and the event stream', () => {
  it('runs a prompt to its answer, announcing the turn and numbering every event', async () => {
    const s = await openTestSession(() => ({ text: 'hello there' }));
    const handle = s.controller.submit('say hello');
    expect(handle.queued).toBe(false);
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({
      stopReason: 'completed',
      text: 'hello there',
      origin: 'user',
      isError: false,
    });
    const seqs = s.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const types = s.events.map((e) => e.event.type);
    expect(types.indexOf('turn_started')).toBeLessThan(types.indexOf('text_delta'));
    expect(types.indexOf('text_delta')).toBeLessThan(types.indexOf('turn_ended'));
    expect(s.controller.snapshot()).toMatchObject({
      status: 'idle',
      turn: null,
      profile: null,
      safety: 'full',
    });
    expect(s.mainCalls()[0].last).toBe('say hello');
  });

  it('never changes the process working directory; two controllers in one process keep their own roots', async () => {
    const before = process.cwd();
    const a = await openTestSession(() => ({ text: 'a' }));
    const b = await openTestSession(() => ({ text: 'b' }));
    await Promise.all([a.controller.submit('x').outcome, b.controller.submit('y').outcome]);
    expect(process.cwd()).toBe(before);
    expect(a.controller.snapshot().projectRoot).toBe(realpathSync(a.project.dir));
    expect(b.controller.snapshot().projectRoot).toBe(realpathSync(b.project.dir));
    expect(a.calls.map((c) => c.last)).toEqual(['x']);
    expect(b.calls.map((c) => c.last)).toEqual(['y']);
  });

  it('a reconnecting client resumes after the last id it saw, with nothing lost or repeated', async () => {
    const s = await openTestSession(() => ({ text: 'one two three' }));
    await s.controller.submit('first').outcome;
    const cut = s.events[4].seq;
    const replayed: number[] = [];
    const sub = s.controller.subscribe((e) => replayed.push(e.seq), { after: cut });
    expect(sub.resumed).toBe(true);
    await s.controller.submit('second').outcome;
    sub.close();
    const expected = s.events.filter((e) => e.seq > cut).map((e) => e.seq);
    expect(replayed).toEqual(expected);
  });

  it('a client too far behind the replay buffer is told to resync from the snapshot', async () => {
    const s = await openTestSession(() => ({ text: 'ok' }));
    await s.controller.submit('first').outcome;
    const sub = s.controller.subscribe(() => {}, { after: -5 });
    expect(sub.resumed).toBe(false);
    expect(sub.snapshot.seq).toBe(s.events.at(-1)?.seq);
    sub.close();
  });

  it('queues a prompt sent during a turn, shows it, and sends it when the turn ends', async () => {
    const first = gate<void>();
    const s = await openTestSession(async (call) => {
      if (call.last === 'one') await first.promise;
      return { text: `answer to ${call.last}` };
    });
    const one = s.controller.submit('one');
    await s.next('turn_started');
    const two = s.controller.submit('two');
    expect(two.queued).toBe(true);
    expect(s.controller.snapshot().queue.map((q) => q.text)).toEqual(['two']);
    first.open();
    expect((await one.outcome).text).toBe('answer to one');
    expect(await two.outcome).toMatchObject({ text: 'answer to two', origin: 'queued' });
    expect(s.mainCalls().map((c) => c.last)).toEqual(['one', 'two']);
    expect(s.controller.snapshot().queue).toEqual([]);
  });

  it('a queued prompt can be cancelled before it is sent', async () => {
    const first = gate<void>();
    const s = await openTestSession(async (call) => {
      if (call.last === 'one') await first.promise;
      return { text: 'ok' };
    });
    const one = s.controller.submit('one');
    await s.next('turn_started');
    const two = s.controller.submit('two');
    expect(s.controller.cancelQueued(two.id)).toBe(true);
    expect(s.controller.cancelQueued(two.id)).toBe(false);
    first.open();
    await one.outcome;
    expect(await two.outcome).toMatchObject({ stopReason: 'cancelled', isError: true });
    expect(s.mainCalls().map((c) => c.last)).toEqual(['one']);
  });

  it('with whenBusy reject a second prompt is refused and the running turn is untouched', async () => {
    const first = gate<void>();
    const s = await openTestSession(async () => {
      await first.promise;
      return { text: 'finished' };
    });
    const one = s.controller.submit('one', { whenBusy: 'reject' });
    await s.next('turn_started');
    expect(() => s.controller.submit('two', { whenBusy: 'reject' })).toThrow(/already running/);
    first.open();
    expect((await one.outcome).text).toBe('finished');
    expect(s.mainCalls()).toHaveLength(1);
  });

  it('an empty or blank prompt is refused with a message and never reaches the model', async () => {
    const s = await openTestSession(() => ({ text: 'ok' }));
    for (const text of ['', '   ', '\n\t']) {
      const outcome = await s.controller.submit(text).outcome;
      expect(outcome).toMatchObject({ stopReason: 'refused', isError: true });
      expect(outcome.error).toContain('empty');
    }
    expect(s.calls).toEqual([]);
    expect(s.controller.snapshot().status).toBe('idle');
  });

  it('interrupt cancels the turn; a second interrupt while idle does nothing', async () => {
    const s = await openTestSession(() => new Promise(() => {}));
    const handle = s.controller.submit('hang');
    await s.next('turn_start');
    expect(s.controller.interrupt()).toBe(true);
    expect((await handle.outcome).stopReason).toBe('cancelled');
    expect(s.controller.interrupt()).toBe(false);
    expect(s.controller.snapshot().status).toBe('idle');
  });

  it('the main system prompt is the default one', async () => {
    const s = await openTestSession(() => ({ text: 'ok' }));
    await s.controller.submit('x').outcome;
    expect(s.calls[0].system.startsWith(MAIN_SYSTEM)).toBe(true);
  });
});
