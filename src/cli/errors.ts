/** Bad usage or bad configuration: the CLI prints the message and exits 2 (SPEC 1). */
export class UsageError extends Error {
  override name = 'UsageError';
}
