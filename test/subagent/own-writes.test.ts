import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OwnWrites, uncommittedPaths } from '../../src/subagent/own-writes.js';

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir });
}

describe('OwnWrites: what serialized writers left uncommitted', () => {
  let top: string;
  beforeEach(() => {
    top = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-own-writes-')));
    git(top, 'init', '-q', '-b', 'main');
    writeFileSync(join(top, 'tracked.txt'), 'base\n');
    writeFileSync(join(top, 'old name.txt'), 'moved\n');
    git(top, 'add', '-A');
    git(top, 'commit', '-qm', 'base');
  });
  afterEach(() => rmSync(top, { recursive: true, force: true }));

  const cases: {
    name: string;
    writer: (at: (p: string) => string) => void;
    recorded: string[];
    after?: (at: (p: string) => string) => void;
    unexplained: string[];
  }[] = [
    {
      name: 'a written file left as the writer left it',
      writer: (at) => writeFileSync(at('new.txt'), 'w\n'),
      recorded: ['new.txt'],
      unexplained: [],
    },
    {
      name: 'a written file changed afterwards',
      writer: (at) => writeFileSync(at('tracked.txt'), 'w\n'),
      recorded: ['tracked.txt'],
      after: (at) => writeFileSync(at('tracked.txt'), 'the parent\n'),
      unexplained: ['tracked.txt'],
    },
    {
      name: 'a file deleted by the writer and still absent',
      writer: (at) => rmSync(at('tracked.txt')),
      recorded: ['tracked.txt'],
      unexplained: [],
    },
    {
      name: 'a file deleted by the writer and recreated since',
      writer: (at) => rmSync(at('tracked.txt')),
      recorded: ['tracked.txt'],
      after: (at) => writeFileSync(at('tracked.txt'), 'back\n'),
      unexplained: ['tracked.txt'],
    },
    {
      name: 'a file nobody recorded',
      writer: (at) => writeFileSync(at('user.txt'), 'u\n'),
      recorded: [],
      unexplained: ['user.txt'],
    },
  ];

  it.each(cases)('$name', async ({ writer, recorded, after, unexplained }) => {
    const own = new OwnWrites();
    const at = (p: string) => join(top, p);
    writer(at);
    own.record(recorded.map(at));
    after?.(at);
    expect(await own.unexplained(top)).toEqual(unexplained);
  });

  it('around() records what a write of unknown paths changed, not what was dirty and untouched', async () => {
    const own = new OwnWrites();
    writeFileSync(join(top, 'user.txt'), 'the user\n');
    await own.around(top, async () => {
      writeFileSync(join(top, 'tracked.txt'), 'bash\n');
      writeFileSync(join(top, 'made.txt'), 'bash\n');
    });
    expect(await own.unexplained(top)).toEqual(['user.txt']);
  });

  it('lists both sides of a staged rename', async () => {
    git(top, 'mv', 'old name.txt', 'new name.txt');
    expect((await uncommittedPaths(top)).sort()).toEqual(['new name.txt', 'old name.txt']);
  });
});
