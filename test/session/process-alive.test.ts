import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processIsAlive } from '../../src/session/process-alive.js';

describe('processIsAlive', () => {
  it('is true for this process', () => {
    expect(processIsAlive(process.pid)).toBe(true);
  });

  it('is false for a process that has exited and been reaped', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    const { pid } = child;
    if (pid === undefined) throw new Error('the child process did not start');
    expect(processIsAlive(pid)).toBe(false);
  });
});
