import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CodeCacheLocation, codeCacheLocation, readCodeCache } from '../../src/util/code-cache.js';
import { bundlePath, ScriptModules } from '../../src/util/script-modules.js';

const dir = mkdtempSync(join(tmpdir(), 'cadre-scripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

/** A file as scripts/build.mjs writes it: a module body wrapped in the loader's function. */
const script = (body: string) =>
  `(function(exports,require,module,__cadreUrl,__cadreImport){"use strict";${body}\n})`;

/** A bundle of three files: an entry, a shared helper and a lazily imported one. */
function bundle(): { root: string; entry: string } {
  const root = join(dir, `bundle-${++counter}`);
  mkdirSync(join(root, 'chunks'), { recursive: true });
  writeFileSync(
    join(root, 'chunks', 'shared.js'),
    script('class Shared{};module.exports={Shared,count:0,url:__cadreUrl};'),
  );
  writeFileSync(
    join(root, 'chunks', 'lazy.js'),
    script('const s=require("./shared.js");module.exports={isShared:(x)=>x instanceof s.Shared};'),
  );
  writeFileSync(
    join(root, 'entry.js'),
    script(
      'const s=require("./chunks/shared.js");const {join}=require("node:path");' +
        'exports.make=()=>new s.Shared();exports.lazy=()=>__cadreImport("./chunks/lazy.js");' +
        'exports.builtin=()=>__cadreImport("node:path");exports.joined=join("a","b");' +
        'exports.fail=()=>require("./chunks/throws.js");exports.native=()=>__cadreImport("./chunks/native.mjs");' +
        'exports.stub=()=>__cadreImport("./chunks/stub.cjs");',
    ),
  );
  writeFileSync(join(root, 'chunks', 'native.mjs'), 'export const native = import.meta.url;\n');
  writeFileSync(join(root, 'chunks', 'stub.cjs'), 'module.exports = { stub: __filename };\n');
  writeFileSync(
    join(root, 'chunks', 'throws.js'),
    script('globalThis.__ran=(globalThis.__ran??0)+1;throw new Error("boom");'),
  );
  return { root, entry: join(root, 'entry.js') };
}

function location(name = `cache-${++counter}`, version = '1.0.0'): CodeCacheLocation {
  const env = { XDG_CACHE_HOME: join(dir, name), CADRE_CONFIG_DIR: join(dir, `${name}-config`) };
  mkdirSync(env.CADRE_CONFIG_DIR, { recursive: true });
  return codeCacheLocation(env, 'headless', 'abc123', version);
}

const FILES = ['entry.js', 'chunks/shared.js', 'chunks/lazy.js', 'chunks/throws.js'];

function run(root: string, entry: string, cache: CodeCacheLocation) {
  const modules = new ScriptModules({ root, files: FILES, cache });
  const exports = modules.load(entry) as Record<string, () => unknown> & { joined: string };
  return { modules, exports };
}

describe('mode bundles loaded as scripts (issue 17)', () => {
  it('links the files of a bundle once each, as ES modules would, and reaches Node for the rest', async () => {
    const { root, entry } = bundle();
    const { exports } = run(root, entry, location());
    expect(exports.joined).toBe(join('a', 'b'));
    const lazy = (await exports.lazy()) as { isShared(x: unknown): boolean };
    expect(lazy.isShared(exports.make())).toBe(true);
    expect(((await exports.builtin()) as { join: unknown }).join).toBe(join);
    // A file beside the bundle's but not one of them is an ES module, imported by Node from the file's place.
    expect(((await exports.native()) as { native: string }).native).toMatch(/\/chunks\/native\.mjs$/);
    // A CommonJS file (a mode's stub) is required, without starting Node's ES module loader.
    expect(((await exports.stub()) as { stub: string }).stub).toBe(join(root, 'chunks', 'stub.cjs'));
    // A builtin's namespace, as import() gives it: named exports and the module as default.
    const path = (await exports.builtin()) as { join: unknown; default: { join: unknown } };
    expect(path.default.join).toBe(join);
    expect(() => exports.fail()).toThrow('boom');
    // Evaluated once: the second import throws the same error without running the file again.
    expect(() => exports.fail()).toThrow('boom');
    expect((globalThis as { __ran?: number }).__ran).toBe(1);
  });

  it('writes the code cache after a run without one, and takes every file from it on the next run', async () => {
    const { root, entry } = bundle();
    const cache = location();
    const first = run(root, entry, cache);
    await first.exports.lazy();
    expect(first.modules.compiledFromSource.sort()).toEqual([
      'chunks/lazy.js',
      'chunks/shared.js',
      'entry.js',
    ]);
    first.modules.save();
    expect([...readCodeCache(cache).keys()].sort()).toEqual([
      'chunks/lazy.js',
      'chunks/shared.js',
      'entry.js',
    ]);
    expect(readdirSync(join(cache.file, '..'))).toEqual([cache.file.split('/').pop()]);

    const second = run(root, entry, cache);
    await second.exports.lazy();
    expect(second.modules.compiledFromSource).toEqual([]);
    const before = readFileSync(cache.file);
    second.modules.save();
    expect(readFileSync(cache.file).equals(before)).toBe(true);
  });

  it('keeps the caches of files a run did not load when it writes', async () => {
    const { root, entry } = bundle();
    const cache = location();
    const first = run(root, entry, cache);
    await first.exports.lazy();
    first.modules.save();
    writeFileSync(entry, script('exports.changed=true;'));
    const second = run(root, entry, cache);
    expect(second.modules.compiledFromSource).toEqual(['entry.js']);
    second.modules.save();
    expect([...readCodeCache(cache).keys()].sort()).toEqual([
      'chunks/lazy.js',
      'chunks/shared.js',
      'entry.js',
    ]);
  });

  it('ignores and rewrites a cache V8 rejects (its file changed under the same name)', () => {
    const { root, entry } = bundle();
    const cache = location();
    run(root, entry, cache).modules.save();
    writeFileSync(entry, script('exports.other=1;exports.more=2;'));
    const second = run(root, entry, cache);
    expect(second.exports.other).toBe(1);
    expect(second.modules.compiledFromSource).toEqual(['entry.js']);
    second.modules.save();
    expect(run(root, entry, cache).modules.compiledFromSource).toEqual([]);
  });

  it('ignores a corrupt, truncated or forged cache and writes a good one in its place', () => {
    const { root, entry } = bundle();
    const cache = location();
    run(root, entry, cache).modules.save();
    const good = readFileSync(cache.file);
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 10] ^= 0xff;
    // Signed with another key: what a sandboxed command writing the cache directory could make at best.
    const otherKey = location();
    run(root, entry, otherKey).modules.save();
    const forged = readFileSync(otherKey.file);
    for (const bad of [corrupt, good.subarray(0, 40), Buffer.alloc(0), forged]) {
      writeFileSync(cache.file, bad);
      const next = run(root, entry, cache);
      expect(next.exports.joined).toBe(join('a', 'b'));
      expect(next.modules.compiledFromSource).toEqual(['entry.js', 'chunks/shared.js']);
      next.modules.save();
      expect(run(root, entry, cache).modules.compiledFromSource).toEqual([]);
    }
  });

  it('takes nothing from a cache made for another version, bundle or key', () => {
    const { root, entry } = bundle();
    const name = `cache-${++counter}`;
    const cache = location(name, '1.0.0');
    run(root, entry, cache).modules.save();
    const otherVersion = { ...location(name, '1.0.1'), file: cache.file };
    expect(readCodeCache(otherVersion).size).toBe(0);
    const otherKey = location();
    run(root, entry, otherKey).modules.save();
    writeFileSync(cache.file, readFileSync(otherKey.file));
    expect(readCodeCache(cache).size).toBe(0);
  });

  it('runs without a cache where the cache directory cannot be written', () => {
    const { root, entry } = bundle();
    const blocker = join(dir, `blocker-${++counter}`);
    writeFileSync(blocker, 'a file where a directory should be\n');
    const cache = codeCacheLocation(
      { XDG_CACHE_HOME: join(blocker, 'cache'), CADRE_CONFIG_DIR: dir },
      'headless',
      'abc123',
      '1.0.0',
    );
    const first = run(root, entry, cache);
    expect(() => first.modules.save()).not.toThrow();
    expect(run(root, entry, cache).modules.compiledFromSource).toEqual(['entry.js', 'chunks/shared.js']);
  });

  it('makes no config directory for its key: the cache waits for a run that made one', () => {
    const { root, entry } = bundle();
    const cache = location();
    const configDir = join(cache.keyFile, '..');
    rmSync(configDir, { recursive: true, force: true });
    run(root, entry, cache).modules.save();
    expect(existsSync(configDir)).toBe(false);
    expect(existsSync(cache.file)).toBe(false);
    mkdirSync(configDir);
    run(root, entry, cache).modules.save();
    expect(readCodeCache(cache).size).toBe(2);
  });

  it("removes this mode's caches of other bundles once they are a day old", () => {
    const { root, entry } = bundle();
    const cache = location();
    const cacheDir = join(cache.file, '..');
    mkdirSync(cacheDir, { recursive: true });
    const old = join(cacheDir, 'headless-0ld-v20.0.0-x64.bin');
    const recent = join(cacheDir, 'headless-n3w-v20.0.0-x64.bin');
    const otherMode = join(cacheDir, 'acp-0ld-v20.0.0-x64.bin');
    for (const file of [old, recent, otherMode]) writeFileSync(file, 'x');
    const twoDaysAgo = (Date.now() - 2 * 24 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    utimesSync(otherMode, twoDaysAgo, twoDaysAgo);
    run(root, entry, cache).modules.save();
    expect(readdirSync(cacheDir).sort()).toEqual(
      [otherMode, cache.file, recent].map((path) => path.split('/').pop()).sort(),
    );
  });
});

describe('bundlePath', () => {
  it('resolves a relative specifier inside the bundle with string work only', () => {
    expect(bundlePath('entry.js', './chunks/a.js')).toBe('chunks/a.js');
    expect(bundlePath('chunks/a.js', './b.js')).toBe('chunks/b.js');
    expect(bundlePath('chunks/a.js', '../entry.js')).toBe('entry.js');
    expect(bundlePath('modes/chunks/a.js', '../../cli.js')).toBe('cli.js');
    expect(bundlePath('chunks/a.js', './/x/./y.js')).toBe('chunks/x/y.js');
  });

  it('names nothing for a bare specifier or a path out of the bundle', () => {
    expect(bundlePath('entry.js', 'node:path')).toBeUndefined();
    expect(bundlePath('entry.js', 'better-sqlite3')).toBeUndefined();
    expect(bundlePath('entry.js', '../outside.js')).toBeUndefined();
    expect(bundlePath('chunks/a.js', '../../outside.js')).toBeUndefined();
  });
});
