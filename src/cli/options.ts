import { UsageError } from './errors.js';

/** Values of the flags shared by every command that runs an agent (SPEC 1). */
export const SAFETY = ['read-only', 'non-destructive', 'full'] as const;
export const FORMATS = ['text', 'json', 'stream-json'] as const;

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive integer, got "${value}"`);
  return n;
}
