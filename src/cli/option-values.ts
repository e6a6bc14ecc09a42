/** Values of the flags shared by every command that runs an agent (SPEC 1); no commander here. */
export const SAFETY = ['read-only', 'non-destructive', 'full'] as const;
export const FORMATS = ['text', 'json', 'stream-json'] as const;

/** A flag value that is a positive integer, as a number; `undefined` for anything else. */
export function positiveIntValue(value: string): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}
