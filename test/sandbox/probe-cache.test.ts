import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOnPath, forget, probeCacheFor, remember, remembered } from '../../src/sandbox/probe-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'cadre-probe-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, content: string, mode: number): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

describe('findOnPath', () => {
  const bin = join(dir, 'bin');
  const plain = join(dir, 'plain');
  file(join(plain, 'bwrap'), 'not executable', 0o644);
  mkdirSync(join(dir, 'asdir', 'bwrap'), { recursive: true });
  const real = file(join(bin, 'bwrap'), '#!/bin/sh\n', 0o755);
  it.each([
    { name: 'the first executable entry', path: `${plain}:${join(dir, 'asdir')}:${bin}`, found: real },
    { name: 'nothing on an empty PATH', path: '', found: undefined },
    { name: 'nothing where no entry holds it', path: `${plain}:/nonexistent-dir`, found: undefined },
    { name: 'empty entries skipped', path: `::${bin}`, found: real },
  ])('$name', ({ path, found }) => {
    expect(findOnPath('bwrap', path)).toBe(found);
  });
});

describe('the remembered bwrap probe', () => {
  const bin = join(dir, 'cache-bin');
  const binary = file(join(bin, 'bwrap'), '#!/bin/sh\nexit 0\n', 0o755);
  const env = { PATH: bin, XDG_CACHE_HOME: join(dir, 'xdg'), HOME: join(dir, 'home') };

  it('lives in the XDG cache directory, else ~/.cache', () => {
    expect(probeCacheFor(env)?.file).toBe(join(dir, 'xdg', 'cadre', 'bwrap-probe.json'));
    expect(probeCacheFor({ ...env, XDG_CACHE_HOME: '' })?.file).toBe(
      join(dir, 'home', '.cache', 'cadre', 'bwrap-probe.json'),
    );
    expect(probeCacheFor({ ...env, PATH: '/nonexistent-dir' })).toBeUndefined();
  });

  it('holds for the same binary only: a changed size or mtime probes again', () => {
    const cache = probeCacheFor(env);
    if (!cache) throw new Error('no cache');
    expect(remembered(cache)).toBe(false);
    remember(cache);
    expect(remembered(cache)).toBe(true);
    expect(remembered({ ...cache })).toBe(true);
    utimesSync(binary, new Date(), new Date(Date.now() - 60_000));
    const touched = probeCacheFor(env);
    expect(touched && remembered(touched)).toBe(false);
    writeFileSync(binary, '#!/bin/sh\nexit 0 # a longer build\n');
    const rebuilt = probeCacheFor(env);
    expect(rebuilt && remembered(rebuilt)).toBe(false);
  });

  it.each([
    { name: 'garbage', content: 'not json' },
    { name: 'a failure', content: '{"ok": false}' },
    { name: 'no ok', content: '{}' },
  ])('never takes $name from the file as a success', ({ content }) => {
    const cache = probeCacheFor(env);
    if (!cache) throw new Error('no cache');
    file(
      cache.file,
      content.replace('{', `{"key": ${JSON.stringify(cache.key)}, `).replace(', }', '}'),
      0o644,
    );
    expect(remembered(cache)).toBe(false);
  });

  it('forgets a success that bwrap no longer bears out', () => {
    const cache = probeCacheFor(env);
    if (!cache) throw new Error('no cache');
    remember(cache);
    forget(cache);
    expect(remembered(cache)).toBe(false);
    expect(() => forget(cache)).not.toThrow();
  });
});
