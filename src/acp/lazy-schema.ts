/**
 * A zod schema built the first time anything touches it. The ACP SDK builds its ~470 message schemas when
 * it loads, although a server validates only the few requests it receives; the build (scripts/build.mjs)
 * wraps each of them in this, so `cadre acp` answers `initialize` without paying for the rest (issue 17).
 * The proxy forwards every operation to the built schema, so the SDK and zod use it as the schema itself.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const built = (): T => {
    schema ??= build();
    return schema;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(built(), key),
    set: (_, key, value) => Reflect.set(built(), key, value),
    has: (_, key) => Reflect.has(built(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(built(), key),
    ownKeys: () => Reflect.ownKeys(built()),
    // A proxy may not report a non-configurable property its (empty) target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(built(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(built(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
  });
}
