import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { parseOperatorProfile } from '../../src/permission/operator.js';
import { loadProfileFile } from '../../src/profile/file-source.js';
import { parseFrontmatter } from '../../src/profile/frontmatter.js';
import { parseJsonc } from '../../src/util/json-errors.js';
import { readRegularTextFile } from '../../src/util/read-text.js';

const dir = mkdtempSync(join(tmpdir(), 'cadre-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

function bigFile(name: string, bytes: number): string {
  const path = join(dir, name);
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

function zeroLink(name: string): string {
  const path = join(dir, name);
  symlinkSync('/dev/zero', path);
  return path;
}

describe('readRegularTextFile', () => {
  it.each([
    [
      'a FIFO (no writer: would block a plain read forever)',
      () => fifo('pipe'),
      /a FIFO, not a regular file/,
    ],
    ['/dev/zero behind a symlink', () => zeroLink('zero.md'), /a device, not a regular file/],
    ['a directory', () => dir, /a directory, not a regular file/],
    ['a 50 MB file', () => bigFile('big.json', 50 * 1024 * 1024), /larger than 1 MiB/],
    ['a missing file', () => join(dir, 'nope'), /cannot read: ENOENT/],
  ])('refuses %s with a reason', (_what, make, reason) => {
    const read = readRegularTextFile(make());
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.reason).toMatch(reason);
  });

  it('drops a UTF-8 byte-order mark', () => {
    const path = join(dir, 'bom.txt');
    writeFileSync(path, '\uFEFF{"a": 1}');
    expect(readRegularTextFile(path)).toEqual({ ok: true, text: '{"a": 1}' });
  });
});

describe('config and permission files', () => {
  function projectWithConfig(make: (path: string) => void) {
    const root = mkdtempSync(join(dir, 'proj-'));
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, '.cadre'));
    make(join(root, '.cadre', 'config.json'));
    return root;
  }

  it.each([
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), 'a FIFO'],
    ['/dev/zero via symlink', (p: string) => symlinkSync('/dev/zero', p), 'a device'],
    ['a directory', (p: string) => mkdirSync(p), 'a directory'],
    [
      'a 50 MB file',
      (p: string) => {
        writeFileSync(p, '');
        truncateSync(p, 50 * 1024 * 1024);
      },
      'file is larger',
    ],
  ])('a config file that is %s is a config error naming the path', (_what, make, reason) => {
    const root = projectWithConfig(make);
    const path = join(root, '.cadre', 'config.json');
    expect(() => loadConfig(root, { CADRE_CONFIG_DIR: join(root, 'none') })).toThrow(
      new RegExp(`${path.replace(/[.]/g, '\\.')}: ${reason}`),
    );
  });

  it('a config file with a byte-order mark loads', () => {
    const root = projectWithConfig((p) => writeFileSync(p, '\uFEFF{"model": "m1"}'));
    expect(loadConfig(root, { CADRE_CONFIG_DIR: join(root, 'none') }).config.model).toBe('m1');
  });

  it('JSON nested thousands deep is a parse error with the line, not a RangeError', () => {
    const text = `{\n"a": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const parsed = parseJsonc(text, 'c.json', 'configuration');
    expect(parsed).toEqual({
      ok: false,
      message: 'c.json:2: invalid JSON in configuration (nested deeper than 256 levels)',
    });
    expect(parseJsonc('{"s": "[[[[", "t": [1]}', 'c.json', 'x')).toEqual({
      ok: true,
      value: { s: '[[[[', t: [1] },
    });
  });

  it('--permissions JSON and YAML errors and YAML warnings name the file and line', () => {
    expect(() => parseOperatorProfile('/p.json', '{\n"deny": [\n')).toThrow(/^\/p\.json:3: invalid JSON/);
    expect(() => parseOperatorProfile('/p.yaml', 'deny:\n  - bash\ndeny:\n  - read\n')).toThrow(
      /^\/p\.yaml:3: invalid YAML \(Map keys must be unique\)/,
    );
    expect(() => parseOperatorProfile('/p.yaml', 'deny:\n  - !weird bash\n')).toThrow(
      /^\/p\.yaml:2: invalid YAML \(Unresolved tag: !weird\)/,
    );
  });
});

describe('profile files', () => {
  it('a FIFO profile is a load warning naming it, not a hang', () => {
    const path = fifo('agent.md');
    const outcome = loadProfileFile(path, 'project', 'stem');
    expect(outcome.profile).toBeUndefined();
    expect(outcome.warning).toEqual({ path, reason: 'a FIFO, not a regular file' });
  });

  it('frontmatter errors and YAML warnings carry the file line', () => {
    expect(parseFrontmatter('---\ndescription: x\nmodel: [a\n---\nbody')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^unparsable frontmatter at line 4: /),
    });
    const parsed = parseFrontmatter('---\ndescription: x\nmodel: !tag m\n---\nbody');
    expect(parsed.ok && parsed.value.notes).toEqual(['YAML warning at line 3: Unresolved tag: !tag']);
  });
});
