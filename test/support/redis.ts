import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free loopback port (the kernel's choice, released at once for the server to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  /** kill -9: what a crashed Redis looks like to cadre. */
  kill(): Promise<void>;
  /**
   * Starts it again on the same port and data (append-only file: the queue survives); with `empty`,
   * without its data, as a Redis run without persistence comes back.
   */
  restart(options?: { empty?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Debian's real `redis-server` on a free loopback port, with persistence (appendfsync always) and
 * `maxmemory-policy noeviction` as BullMQ requires; never a mock.
 */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cadre-redis-'));
  let child: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const server = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--save',
          '',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = server;
      let out = '';
      server.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) resolve();
      });
      server.once('error', reject);
      server.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)));
    });
  const stopWith = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: () => stopWith('SIGKILL'),
    restart(options = {}) {
      if (options.empty) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
      return launch();
    },
    async stop() {
      await stopWith('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
