import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/permission/bash-analysis.js';

const analyse = (command: string) => analyzeBash(command, '/p', '/h');

describe('analyzeBash classification (6.5)', () => {
  it.each([
    ['ls -la', 'read'],
    ['git status', 'read'],
    ['git log --oneline', 'read'],
    ['git branch', 'read'],
    ['git branch -D old', 'destructive'],
    ['find . -name x', 'read'],
    ['find . -name x -exec cat {} ;', 'write'],
    ['find . -delete', 'destructive'],
    ['rg foo src', 'read'],
    ['npm install', 'write'],
    ['touch x', 'write'],
    ['rm -rf build', 'destructive'],
    ['git reset --hard', 'destructive'],
    ['git checkout -- src', 'destructive'],
    ['git clean -fd', 'destructive'],
    ['chmod -R 777 .', 'destructive'],
    ['chmod 644 a', 'write'],
    ['kill -9 1', 'destructive'],
    ['sudo ls', 'destructive'],
    ['dd if=/dev/zero of=x', 'destructive'],
    ['echo hi > out.txt', 'write'],
    ['echo hi > /tmp/out.txt', 'destructive'],
    ['echo hi >> /tmp/out.txt', 'write'],
    ['ls 2>/dev/null', 'read'],
    ['ls 2>&1 | head', 'read'],
    ['ls && rm x', 'destructive'],
    ['eval ls', 'destructive'],
    ["echo 'x", 'destructive'],
    ['$CMD x', 'destructive'],
    ['cat <<EOF\n$(rm x)\nEOF', 'destructive'],
    ["cat <<'EOF'\n$(not run)\nEOF", 'read'],
    ['sed -n 1,5p a', 'read'],
    ['sed -i s/a/b/ a', 'write'],
    ['[[ -f x ]] && cat x', 'read'],
    ['[ -f x ] || ls', 'read'],
    ['echo `echo \\`rm x\\``', 'destructive'],
    ['case $x in a) ls;; *) cat y;; esac', 'read'],
    ['for f in a b; do cat $f; done', 'write'],
    ['echo $((1 + 2))', 'read'],
    ['((n++))', 'destructive'],
  ])('classes %j as %s', async (command, safety) => {
    expect((await analyse(command)).safety).toBe(safety);
  });

  it('resolves quoting and lists every simple command, substitutions included', async () => {
    const analysis = await analyse(`gi't' diff "a b" && echo $(rm x) | wc -l`);
    expect(analysis.commands.filter((c) => !c.derived).map((c) => c.text)).toEqual([
      'git diff a b',
      'echo $(rm x)',
      'wc -l',
      'rm x',
    ]);
  });

  it('reports wrappers and the command they run as a derived form', async () => {
    const analysis = await analyse('sudo env FOO=1 git push');
    const derived = analysis.commands.filter((c) => c.derived).map((c) => [c.text, c.wrappers]);
    expect(derived).toContainEqual(['git push', ['sudo', 'env']]);
  });

  it('gives redirect targets as real paths and marks those outside the project', async () => {
    const analysis = await analyse('echo a > out.txt 2>> ~/log');
    expect(analysis.redirects.map((r) => [r.paths, r.truncates, r.outsideProject])).toEqual([
      [['/p/out.txt'], true, false],
      [['/h/log'], false, true],
    ]);
  });

  it('reports parse problems from the parser', async () => {
    const analysis = await analyse('ls (');
    expect(analysis.problems.some((p) => p.startsWith('parse error'))).toBe(true);
  });
});
