/**
 * `record[key]` for keys that come from users (aliases, profile and tool names): only an own property
 * counts, so `constructor`, `toString` or `__proto__` are unknown names, never Object.prototype members.
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
