import { InvalidArgumentError } from 'commander';
import { positiveIntValue } from './option-values.js';

export { FORMATS, SAFETY } from './option-values.js';

/** Flag value parsers: commander's own error names the flag (`option '--max-turns <n>' argument '0' is invalid`). */
export function positiveInt(value: string): number {
  const n = positiveIntValue(value);
  if (n === undefined) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

/** `--port`: 0 lets the system pick a free one. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`expected a port number, got "${value}"`);
  return n;
}
