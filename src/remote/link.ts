import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  connect,
  describeRedis,
  loadQueueLibraries,
  QUEUE_NAME,
  type QueueLibraries,
  ready,
} from './redis.js';

/**
 * The link stays open this long without a remote task (the session's next dispatch and a fleet's next
 * item reuse it); the end of the session closes it at once.
 */
const IDLE_MS = 60_000;

/** What a running job listens for on the shared QueueEvents connection. */
interface JobWatch {
  failed(reason: string): void;
  stalled(): void;
}

/**
 * The root's link to Redis, shared by every remote task of the session: opened at its start, closed when
 * it ends or after IDLE_MS without a remote task. Reports an outage during a task once, and the
 * reconnection.
 */
export class Link {
  private users = 0;
  private opening?: Promise<void>;
  private closer?: NodeJS.Timeout;
  libs!: QueueLibraries;
  commands!: Redis;
  queue!: Queue;
  private events!: QueueEvents;
  private eventsConnection!: Redis;
  readonly watches = new Map<string, JobWatch>();
  private readonly reconnected = new Set<() => void>();
  private readonly abandoned = new Set<string>();
  private down = false;

  constructor(
    private readonly url: string,
    private readonly warn: (message: string) => void,
    private readonly outageAction: string,
  ) {}

  /**
   * Loads the client libraries and connects ahead of the first task, so its dispatch waits for neither;
   * closed again when no task came within IDLE_MS. A failure here is the first task's to report.
   */
  warm(): void {
    if (this.opening) return;
    this.opening = this.open();
    this.opening.catch(() => undefined);
    this.closer = setTimeout(() => void this.close(), IDLE_MS);
  }

  /** Open and reachable, or throws why not. */
  async acquire(): Promise<void> {
    clearTimeout(this.closer);
    this.users++;
    try {
      this.opening ??= this.open();
      await this.opening;
      if (this.commands.status !== 'ready') throw new Error(`the connection is ${this.commands.status}`);
    } catch (error) {
      this.release();
      throw new Error(`Redis at ${describeRedis(this.url)} is unreachable: ${(error as Error).message}`);
    }
  }

  release(): void {
    this.users--;
    if (this.users > 0) return;
    this.closer = setTimeout(() => void this.close(), IDLE_MS);
  }

  get isDown(): boolean {
    return this.down;
  }

  /**
   * Takes a job this root gave up on out of the queue, so no worker runs it later; one Redis could not
   * be told about is taken out once the connection is back.
   */
  abandon(jobId: string): void {
    this.queue.remove(jobId).catch(() => this.abandoned.add(jobId));
  }

  /** Called when the connection is back after an outage. */
  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  /** A failed open is forgotten: the next task tries again. */
  private open(): Promise<void> {
    return this.connectAll().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
  }

  private async connectAll(): Promise<void> {
    this.libs ??= await loadQueueLibraries();
    const commands = connect(this.libs, this.url, false);
    try {
      await ready(commands);
    } catch (error) {
      commands.disconnect();
      throw error;
    }
    this.commands = commands;
    commands.on('close', () => {
      if (this.down || this.users === 0) return;
      this.down = true;
      this.warn(
        `lost the connection to Redis at ${describeRedis(this.url)}; tasks on workers go on, and their results arrive once it is back; ${this.outageAction}`,
      );
    });
    commands.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.warn(`reconnected to Redis at ${describeRedis(this.url)}`);
      for (const jobId of this.abandoned) void this.queue.remove(jobId).catch(() => undefined);
      this.abandoned.clear();
      for (const listener of this.reconnected) listener();
    });
    this.queue = new this.libs.bullmq.Queue(QUEUE_NAME, { connection: commands });
    this.eventsConnection = connect(this.libs, this.url, true);
    this.events = new this.libs.bullmq.QueueEvents(QUEUE_NAME, { connection: this.eventsConnection });
    this.events.on('failed', ({ jobId, failedReason }) => this.watches.get(jobId)?.failed(failedReason));
    this.events.on('stalled', ({ jobId }) => this.watches.get(jobId)?.stalled());
    try {
      await this.events.waitUntilReady();
    } catch (error) {
      this.eventsConnection.disconnect();
      commands.disconnect();
      throw error;
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.closer);
    if (this.users > 0 || !this.opening) return;
    const opened = this.opening;
    this.opening = undefined;
    await opened.catch(() => undefined);
    // Taken at once: a task starting meanwhile opens connections of its own, not these.
    const { events, queue, eventsConnection, commands } = this;
    await events?.close().catch(() => undefined);
    await queue?.close().catch(() => undefined);
    eventsConnection?.disconnect();
    commands?.disconnect();
  }
}
