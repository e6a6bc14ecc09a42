import { describe, expect, it } from 'vitest';
import { config, z } from 'zod';
import { lazySchema } from '../../src/util/lazy-schema.js';

/** A schema built through `lazySchema`, counting its builds. */
function counted<T extends object>(build: () => T) {
  let builds = 0;
  const schema = lazySchema(() => {
    builds++;
    return build();
  });
  return { schema, builds: () => builds };
}

describe('lazySchema', () => {
  it('builds nothing until used, then exactly once', () => {
    const { schema, builds } = counted(() => z.object({ name: z.string() }));
    const outer = z.object({ inner: schema });
    expect(builds()).toBe(0);
    expect(outer.parse({ inner: { name: 'a' } })).toEqual({ inner: { name: 'a' } });
    expect(schema.parse({ name: 'b' })).toEqual({ name: 'b' });
    expect(builds()).toBe(1);
  });

  it.each([
    ['a valid value', { id: 3, tags: ['x'] }],
    ['a wrong type', { id: 'three', tags: [] }],
    ['a missing key', { tags: [] }],
    ['an extra key under strict', { id: 1, tags: [], extra: true }],
    ['a value below the minimum', { id: -1, tags: [] }],
  ])('validates %s exactly as the schema itself', (_, value) => {
    const build = () => z.object({ id: z.number().int().min(0), tags: z.array(z.string()) }).strict();
    const direct = build().safeParse(value);
    const lazy = lazySchema(build).safeParse(value);
    expect(lazy.success).toBe(direct.success);
    expect(lazy.error?.issues).toEqual(direct.error?.issues);
    expect(lazy.data).toEqual(direct.data);
  });

  it('is recognised as a zod schema and composes like one', () => {
    const schema = lazySchema(() => z.string().min(2));
    expect(schema instanceof z.ZodType).toBe(true);
    expect(schema.optional().parse(undefined)).toBeUndefined();
    expect(z.union([schema, z.number()]).parse(7)).toBe(7);
    expect(z.toJSONSchema(z.object({ s: schema }))).toMatchObject({
      properties: { s: { type: 'string', minLength: 2 } },
    });
  });

  it("builds under zod's jitless setting and leaves the setting as it was, a failed build included", () => {
    const before = config().jitless;
    let during: boolean | undefined;
    const schema = lazySchema(() => {
      during = config().jitless;
      return z.object({ name: z.string() });
    });
    expect(schema.parse({ name: 'a', extra: 1 })).toEqual({ name: 'a' });
    expect(during).toBe(true);
    expect(config().jitless).toBe(before);
    const broken = lazySchema((): z.ZodString => {
      throw new Error('cannot build');
    });
    expect(() => broken.parse('x')).toThrow('cannot build');
    expect(config().jitless).toBe(before);
  });

  it('serves recursive schemas that refer to themselves through z.lazy', () => {
    type Node = { children: Node[] };
    const node: z.ZodType<Node> = lazySchema(() => z.object({ children: z.array(z.lazy(() => node)) }));
    expect(node.parse({ children: [{ children: [] }] })).toEqual({ children: [{ children: [] }] });
    expect(node.safeParse({ children: [{ children: 1 }] }).success).toBe(false);
  });
});
