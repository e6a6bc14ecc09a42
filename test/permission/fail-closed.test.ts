import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/permission/bash-analysis.js';

/**
 * Issue 15 point 2: what the reader cannot prove inert is destructive. Each class has spellings taken
 * from the bash manual (QUOTING, Parameter Expansion, Arithmetic Expansion, Brace Expansion,
 * Here Documents), and controls that stay readable.
 */
const analyse = (command: string) => analyzeBash(command, '/p', '/h');

const CLASSES: Record<string, string[]> = {
  'control bytes outside quotes': [
    'ls\r-la',
    'echo ok\rrm -rf x',
    'ls\x0bsrc',
    'ls\x0csrc',
    'ls \x1b[2K',
    'cat a\x00b',
    'echo "$(ls\rx)"',
    'git\x7f status',
  ],
  'indirect parameter expansion': [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${!x}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${!prefix*}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${!arr[@]}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'cat "${!name}"',
  ],
  'parameter transformation': [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x@P}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo "${x@E}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x@Q}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${arr[@]@A}',
  ],
  'command text inside a parameter expansion': [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x:-$(ls)}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo "${x:=`ls`}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x/a/$(ls)}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x:+<(ls)}',
  ],
  'subscripts and arithmetic holding substitutions': [
    'echo $(( $(ls) + 1 ))',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${a[$(ls)]}',
    'echo $((a[$(ls)]))',
    '(( x = $(ls) ))',
    'a[$(ls)]=1',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    'echo ${x:$(ls)}',
    'test -v "a[$(ls)]"',
    '[[ $(ls) -eq 1 ]]',
  ],
  'brace expansion': [
    'echo {a,b}',
    'ls {src,lib}',
    '{rm,-rf,x}',
    'cat a{1..3}.txt',
    'echo x{,.bak}',
    'ls {a,{b,c}}',
  ],
  'expanded here-document holding substitutions': [
    'cat <<EOF\n$(ls)\nEOF',
    'cat <<EOF\n`ls`\nEOF',
    'cat <<-EOF\n\t$(ls)\n\tEOF',
    'wc -l <<EOF\nx $(ls) y\nEOF',
  ],
};

describe('failing closed', () => {
  for (const [name, spellings] of Object.entries(CLASSES)) {
    it.each(spellings)(`${name}: %j is destructive`, async (command) => {
      const analysis = await analyse(command);
      expect(analysis.safety).toBe('destructive');
    });
  }

  it.each([
    ['ls "a\rb"', 'a control byte inside double quotes is data'],
    ["ls 'a\x0bb'", 'inside single quotes'],
    ["echo $'\\r'", 'an ANSI-C escape is not a raw byte'],
    ['cat <<EOF\nx\ry\nEOF', 'inside a here-document body'],
    ['ls\t-la', 'a tab separates words'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
    ['echo $x ${y} ${#z} ${w:-default}', 'plain expansions'],
    ['echo \'{a,b}\' "{c,d}" \\{e,f\\}', 'quoted braces are no brace expansion'],
    ['find . -exec cat {} ;', 'find {} is no brace expansion'],
    ['git log HEAD@{1}', 'a reflog selector'],
    ["cat <<'EOF'\n$(ls)\nEOF", 'a quoted here-document is not expanded'],
    ['cat <<EOF\n$HOME\nEOF', 'an expanded here-document with variables only'],
    ['echo $((1 + 2))', 'arithmetic on literal numbers'],
  ])('%j is understood (%s)', async (command) => {
    const analysis = await analyse(command);
    expect(analysis.problems).toEqual([]);
  });
});
