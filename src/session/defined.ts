/** The entries of `patch` that are set: an absent key and `undefined` both mean "leave unchanged". */
export function definedEntries<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
