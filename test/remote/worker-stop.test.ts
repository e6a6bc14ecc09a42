import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { redisForFile, sharedRepository, startWorker } from './harness.js';

const redisFile = redisForFile();

describe('cadre worker', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s with nothing running and exits 0', async (signal) => {
    const server = await scriptedServer(script());
    const worker = await startWorker('stopper', redisFile.server.url, server, sharedRepository(), {
      concurrency: 2,
    });
    worker.child.kill(signal);
    // Every connection it opened is closed: nothing keeps the process alive.
    expect(await worker.exited).toBe(0);
    expect(worker.log()).toMatch(/stopping: waiting for running jobs to finish/);
  });
});
