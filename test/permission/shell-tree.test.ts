import { describe, expect, it } from 'vitest';
import { loadShellParser } from '../../src/permission/shell-parser.js';
import { type ParsedShell, walkShell } from '../../src/permission/shell-tree.js';

const withTree = await loadShellParser();
const parse = (source: string): ParsedShell => withTree(source, (root) => walkShell(root, source));

/** Every simple command's text (assignments and words), substitutions after their source, nested. */
function texts(parsed: ParsedShell): string[] {
  return [
    ...parsed.commands.map((c) => [...c.assignments, ...c.words].map((w) => w.value).join(' ')),
    ...parsed.substitutions.flatMap(texts),
    ...parsed.reparse.map((source) => `reparse: ${source}`),
  ];
}

function problems(parsed: ParsedShell): string[] {
  return [...parsed.problems, ...parsed.substitutions.flatMap(problems)];
}

describe('walkShell splits compound commands into simple commands', () => {
  it.each<[string, string[]]>([
    ['git diff; rm -rf /', ['git diff', 'rm -rf /']],
    ['a && b || c | d |& e & f', ['a', 'b', 'c', 'd', 'e', 'f']],
    ['git diff\nrm x', ['git diff', 'rm x']],
    ['(a; b) && { c; }', ['a', 'b', 'c']],
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['while a; do b; done; until c; do d; done', ['a', 'b', 'c', 'd']],
    ['for f in x y; do rm $f; done', ['f=x f=y', 'rm $f']],
    ['select v in a; do echo $v; done', ['v=a', 'echo $v']],
    ['case $x in\n a) rm x;;\n *) ls;;\nesac', ['rm x', 'ls']],
    ['! git diff', ['git diff']],
    ['echo $(rm x) `ls` <(cat a) >(wc)', ['echo $(rm x) `ls` <(cat a) >(wc)', 'rm x', 'ls', 'cat a', 'wc']],
    ['echo "$(a "$(b)")"', ['echo $(a "$(b)")', 'a $(b)', 'b']],
    ['x=$(rm y)', ['x=$(rm y)', 'rm y']],
    ['PATH=/tmp FOO+=1 git diff', ['PATH=/tmp FOO+=1 git diff']],
    ['a=1 b=2', ['a=1 b=2']],
    ['export A=1 B; local c=$(d); unset e', ['export A=1 B', 'local c=$(d)', 'unset e', 'd']],
    ['[ -f x ] && [[ $a == b* ]]', ['[ -f x ]', '[[ $a == b* ]]']],
    ['cat <<EOF | sh\nrm x\nEOF', ['cat', 'sh']],
    ['cat <<EOF && rm x\n$HOME\nEOF', ['cat', 'rm x']],
    ['echo x > a b', ['echo x b']],
    ['ls # ; rm x', ['ls']],
  ])('%j', (source, expected) => {
    const parsed = parse(source);
    expect(texts(parsed)).toEqual(expected);
    expect(problems(parsed)).toEqual([]);
  });
});

describe('walkShell resolves words as bash does', () => {
  it.each<[string, string[]]>([
    [`gi't' diff "a b"`, ['git', 'diff', 'a b']],
    ["'r''m' -rf x", ['rm', '-rf', 'x']],
    [String.raw`r\m \; a\ b`, ['rm', ';', 'a b']],
    [String.raw`$'\x72m' $'a\'b' $'\u00e9\n'`, ['rm', "a'b", 'é\n']],
    ['$"rm" x', ['rm', 'x']],
    [String.raw`echo "a\"b" "\$x" "a\b" "c\\d"`, ['echo', 'a"b', '$x', 'a\\b', 'c\\d']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['echo "a\\\nb" $x ${y:-z}', ['echo', 'ab', '$x', '${y:-z}']],
    ['find . -exec rm {} +', ['find', '.', '-exec', 'rm', '{}', '+']],
    ['nice -n 5 ls', ['nice', '-n', '5', 'ls']],
  ])('%j', (source, expected) => {
    const parsed = parse(source);
    expect(parsed.commands[0].words.map((w) => w.value)).toEqual(expected);
    expect(problems(parsed)).toEqual([]);
  });

  it('marks globs, brace expansions, tildes and expansions', () => {
    const words = parse('x *.ts "*.ts" {a,b} "{a,b}" ~/a ~root "~" $v "$v" $(d) {}').commands[0].words;
    expect(words.map((w) => [w.value, w.glob, w.tilde, w.dynamic])).toEqual([
      ['x', false, false, false],
      ['*.ts', true, false, false],
      ['*.ts', false, false, false],
      ['{a,b}', true, false, false],
      ['{a,b}', false, false, false],
      ['~/a', false, true, false],
      ['~root', false, true, false],
      ['~', false, false, false],
      ['$v', false, false, true],
      ['$v', false, false, true],
      ['$(d)', false, false, true],
      ['{}', false, false, false],
    ]);
  });
});

describe('walkShell records redirections', () => {
  it('gives operator, descriptor and resolved target, skipping closed descriptors and here-strings', () => {
    const parsed = parse('cat <<< "$(a)" < in > "o u t" 2>> ~/log &> all 3>&- >&2');
    expect(parsed.commands[0].redirects.map((r) => [r.op, r.fd, r.target.value])).toEqual([
      ['<', undefined, 'in'],
      ['>', undefined, 'o u t'],
      ['>>', '2', '~/log'],
      ['&>', undefined, 'all'],
      ['>&', undefined, '2'],
    ]);
    expect(texts(parsed)).toEqual(['cat', 'a']);
  });

  it('attaches the redirection of a list after its commands, so a cd in it counts', () => {
    const parsed = parse('cd ~ && echo x > .bashrc');
    expect(parsed.commands.map((c) => c.words.map((w) => w.value).join(' '))).toEqual(['cd ~', 'echo x', '']);
    expect(parsed.commands[2].redirects.map((r) => r.target.value)).toEqual(['.bashrc']);
  });

  it('walks commands a here-document line carries after the command itself', () => {
    const parsed = parse('cd /tmp <<EOF && echo x > .bashrc\nhi\nEOF');
    expect(texts(parsed)).toEqual(['cd /tmp', 'echo x']);
    expect(parsed.commands[1].redirects.map((r) => r.target.value)).toEqual(['.bashrc']);
  });
});

describe('walkShell reports what it cannot follow', () => {
  it.each<[string, string]>([
    ['ls (', 'parse error'],
    ["git diff 'unterminated", 'parse error'],
    ['ls &&', 'parse error: missing'],
    ['r\\\nm -rf x', 'a backslash-newline joins two words'],
    ['[ a > b ]', 'inside [ ] redirects in bash'],
    ['coproc foo { rm x; }', '"coproc" is not followed'],
    ['f() { rm x; }', 'function definitions are not followed'],
    ['function f { ls; }', 'function definitions are not followed'],
    ['echo $((a + 1))', 'with names or substitutions'],
    ['((i++))', 'with names or substitutions'],
    ['for ((i=0; i<3; i++)); do echo; done', 'with names or substitutions'],
    ['[[ $a -eq 1 ]]', 'with names or substitutions'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['echo ${a[$i]}', 'array subscript'],
    ['a[$(rm x)]=1 ls', 'array subscript'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['echo ${x:1:$n}', 'substring offset'],
  ])('%j', (source, problem) => {
    expect(problems(parse(source)).some((p) => p.includes(problem))).toBe(true);
  });

  it.each([
    'git diff \\\nHEAD',
    "echo 'a\\\nb'",
    'echo $((1 + 2))',
    '((3 > 2))',
    '[[ 2 -eq 2 ]]',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${a[0]} ${a[@]} ${x:1:2} ${#x}',
    '[[ a > b ]]',
  ])('follows %j', (source) => {
    expect(problems(parse(source))).toEqual([]);
  });

  it('still finds the commands inside arithmetic it does not follow', () => {
    expect(texts(parse('echo $((1 + $(rm x)))'))).toContain('rm x');
  });

  it('parses backtick bodies with escapes again, as bash unescapes them first', () => {
    expect(texts(parse('echo `echo \\`rm x\\``'))).toEqual([
      'echo `echo \\`rm x\\``',
      'reparse: echo `rm x`',
    ]);
  });

  it('refuses nesting deeper than it walks instead of exhausting the stack', () => {
    const deep = `${'( '.repeat(400)}ls${' )'.repeat(400)}`;
    expect(problems(parse(deep))).toContain('nesting too deep to follow');
  });
});
