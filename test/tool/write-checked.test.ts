import { execFileSync } from 'node:child_process';
import {
  constants,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createPermissionGate } from '../../src/permission/gate.js';
import { readChecked, writeChecked } from '../../src/tool/write-checked.js';
import { makeProject, type Project } from './fixture.js';

/**
 * Issue 15 point 4: a file tool writes the file that was checked and no other; a file with more than one
 * hard link is written as if it were outside the project (reads are not).
 */
let project: Project;
afterEach(() => project?.cleanup());

describe('writeChecked', () => {
  it('writes the checked file', async () => {
    project = makeProject({ 'a.txt': 'old' });
    const target = join(project.root, 'a.txt');
    await writeChecked(target, 'new');
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  it('writes a new file, and one too large to write on cadre’s thread whole, through the thread pool', async () => {
    project = makeProject({ 'big.txt': 'x'.repeat(2 * 1024 * 1024) });
    await writeChecked(join(project.root, 'new.txt'), 'fresh');
    expect(readFileSync(join(project.root, 'new.txt'), 'utf8')).toBe('fresh');
    await writeChecked(join(project.root, 'big.txt'), 'small now');
    expect(readFileSync(join(project.root, 'big.txt'), 'utf8')).toBe('small now');
    const text = 'y'.repeat(1024 * 1024 + 7);
    await writeChecked(join(project.root, 'new.txt'), text);
    expect(readFileSync(join(project.root, 'new.txt'), 'utf8')).toBe(text);
  });

  it('refuses a FIFO as before (it cannot be truncated), without waiting on it', async () => {
    project = makeProject({});
    const fifo = join(project.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    onTestFinished(() => reader.close());
    await expect(writeChecked(fifo, 'x')).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it('refuses a file swapped for a symlink after the check, leaving the outside file untouched', async () => {
    project = makeProject({ 'a.txt': 'old' });
    const victim = join(project.outside, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const target = join(project.root, 'a.txt');
    renameSync(target, join(project.root, 'gone.txt'));
    symlinkSync(victim, target);
    await expect(writeChecked(target, 'pwned')).rejects.toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
  });

  it('refuses when a directory on the path was swapped for a symlink out, leaving the outside file whole', async () => {
    project = makeProject({ 'dir/a.txt': 'old' });
    writeFileSync(join(project.outside, 'a.txt'), 'untouched');
    const target = join(project.root, 'dir', 'a.txt');
    renameSync(join(project.root, 'dir'), join(project.root, 'moved'));
    symlinkSync(project.outside, join(project.root, 'dir'));
    await expect(writeChecked(target, 'pwned')).rejects.toThrow(/changed after it was checked/);
    expect(readFileSync(join(project.outside, 'a.txt'), 'utf8')).toBe('untouched');
  });
});

describe('readChecked', () => {
  it('reads the checked file and refuses one swapped for a link out after the check', async () => {
    project = makeProject({ 'dir/a.txt': 'inside' });
    const target = join(project.root, 'dir', 'a.txt');
    expect((await readChecked(target)).toString()).toBe('inside');
    writeFileSync(join(project.outside, 'a.txt'), 'secret');
    renameSync(join(project.root, 'dir'), join(project.root, 'moved'));
    symlinkSync(project.outside, join(project.root, 'dir'));
    await expect(readChecked(target)).rejects.toThrow(/changed after it was checked/);
  });

  it('reads a file too large to read on cadre’s thread whole, through the thread pool', async () => {
    const text = 'x'.repeat(1024 * 1024 + 7);
    project = makeProject({ 'big.txt': text });
    expect((await readChecked(join(project.root, 'big.txt'))).toString()).toBe(text);
  });

  it('reads a FIFO once a writer comes, as a blocking read does, and fails on a directory as before', async () => {
    project = makeProject({ 'dir/a.txt': 'a' });
    const fifo = join(project.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reading = readChecked(fifo);
    const writer = await open(fifo, 'w');
    await writer.writeFile('through the pipe');
    await writer.close();
    expect((await reading).toString()).toBe('through the pipe');
    await expect(readChecked(join(project.root, 'dir'))).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('hard links', () => {
  it('a write to a file with another hard link is judged as outside; a read is not', async () => {
    project = makeProject({});
    mkdirSync(join(project.root, 'src'));
    const outsideName = join(project.outside, 'shared.txt');
    writeFileSync(outsideName, 'x');
    const insideName = join(project.root, 'src', 'shared.txt');
    linkSync(outsideName, insideName);
    const gate = createPermissionGate({ root: project.root, safety: 'full', yes: true });
    const decide = (tool: string, safety: 'read' | 'write') =>
      gate.decide({ tool, subject: { kind: 'path', paths: [insideName] }, safety, agent: 'main' });
    const write = await decide('write', 'write');
    expect(write.action).toBe('ask');
    expect(write.reason).toContain('more than one hard link');
    expect((await decide('edit', 'write')).action).toBe('ask');
    expect((await decide('read', 'read')).action).toBe('allow');
  });
});
