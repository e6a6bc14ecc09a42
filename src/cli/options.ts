import { InvalidArgumentError } from 'commander';

/** Values of the flags shared by every command that runs an agent (SPEC 1). */
export const SAFETY = ['read-only', 'non-destructive', 'full'] as const;
export const FORMATS = ['text', 'json', 'stream-json'] as const;

/** Flag value parsers: commander's own error names the flag (`option '--max-turns <n>' argument '0' is invalid`). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

/** `--port`: 0 lets the system pick a free one. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`expected a port number, got "${value}"`);
  return n;
}
