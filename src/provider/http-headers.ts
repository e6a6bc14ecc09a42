type HeaderSource =
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[] | undefined>;

/**
 * The part of the WHATWG `Headers` class the provider SDKs use, without it: Node defines `Headers` in
 * undici, and touching it loads all of undici on the way to the first model request (issue 17). The
 * build gives the SDK's HTTP helpers this class in place of the global. Names are case-insensitive and
 * iterate sorted, as with `Headers`; `instanceof` also accepts a real `Headers`, so code that checks for
 * one reads either.
 */
export class HttpHeaders {
  readonly #values = new Map<string, string>();

  constructor(init?: HeaderSource | null) {
    if (init == null) return;
    if (Symbol.iterator in init) {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
    } else {
      for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
        if (value === undefined) continue;
        for (const one of typeof value === 'string' ? [value] : value) this.append(name, one);
      }
    }
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === '[object Headers]';
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), String(value).trim());
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const before = this.#values.get(key);
    const added = String(value).trim();
    this.#values.set(key, before === undefined ? added : `${before}, ${added}`);
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string, headers: HttpHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
