import { mkdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPath, isInside, resolveToolPath } from '../../src/tool/paths.js';
import { makeProject, type Project } from './fixture.js';

describe('resolveToolPath', () => {
  let project: Project;
  beforeEach(() => {
    project = makeProject({ 'src/a.ts': 'a', '../outside/secret.txt': 'secret' });
  });
  afterEach(() => project.cleanup());

  it.each([
    ['a relative path', 'src/a.ts', 'src/a.ts'],
    ['a ./ path', './src/a.ts', 'src/a.ts'],
    ['a path with .. that stays inside', 'src/../src/a.ts', 'src/a.ts'],
    ['a file that does not exist yet', 'src/new/b.ts', 'src/new/b.ts'],
    ['the root itself', '.', ''],
  ])('resolves %s inside the root', (_label, input, expected) => {
    expect(resolveToolPath(project.root, input)).toBe(path.join(project.root, expected));
  });

  it('resolves ../outside to the real outside path', () => {
    expect(resolveToolPath(project.root, '../outside/secret.txt')).toBe(
      path.join(project.outside, 'secret.txt'),
    );
  });

  it('keeps an absolute outside path', () => {
    expect(resolveToolPath(project.root, '/etc/hostname')).toBe('/etc/hostname');
  });

  it('expands ~/ to the home directory', () => {
    expect(resolveToolPath(project.root, '~/x-cadre-test')).toBe(path.join(homedir(), 'x-cadre-test'));
  });

  it('sees through a symlinked file to its real target', () => {
    symlinkSync(path.join(project.outside, 'secret.txt'), path.join(project.root, 'link.txt'));
    expect(resolveToolPath(project.root, 'link.txt')).toBe(path.join(project.outside, 'secret.txt'));
  });

  it('sees through a symlinked directory for a file that does not exist yet', () => {
    symlinkSync(project.outside, path.join(project.root, 'out'));
    expect(resolveToolPath(project.root, 'out/deep/new.txt')).toBe(
      path.join(project.outside, 'deep/new.txt'),
    );
  });

  it('follows a dangling symlink to where a write would land', () => {
    symlinkSync(path.join(project.outside, 'not-yet.txt'), path.join(project.root, 'dangling'));
    expect(resolveToolPath(project.root, 'dangling')).toBe(path.join(project.outside, 'not-yet.txt'));
  });

  it('does not loop on a symlink cycle', () => {
    symlinkSync('loop-b', path.join(project.root, 'loop-a'));
    symlinkSync('loop-a', path.join(project.root, 'loop-b'));
    expect(path.isAbsolute(resolveToolPath(project.root, 'loop-a'))).toBe(true);
  });

  it('normalises .. before resolving links, so the checked path is the path the tool touches', () => {
    mkdirSync(path.join(project.outside, 'real'));
    symlinkSync(path.join(project.outside, 'real'), path.join(project.root, 'alias'));
    expect(resolveToolPath(project.root, 'alias/../x')).toBe(path.join(project.root, 'x'));
  });
});

describe('isInside and displayPath', () => {
  it.each([
    ['/p', '/p', true],
    ['/p', '/p/a/b', true],
    ['/p', '/p2/a', false],
    ['/p', '/a', false],
    ['/p', '/p/..hidden', true],
  ])('isInside(%s, %s) is %s', (root, candidate, expected) => {
    expect(isInside(root, candidate)).toBe(expected);
  });

  it('shows inside paths relative and outside paths absolute', () => {
    expect(displayPath('/p', '/p/src/a.ts')).toBe('src/a.ts');
    expect(displayPath('/p', '/p')).toBe('.');
    expect(displayPath('/p', '/etc/passwd')).toBe('/etc/passwd');
  });
});
