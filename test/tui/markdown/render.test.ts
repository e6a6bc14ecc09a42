import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHighlighter } from '../../../src/tui/markdown/highlight.js';
import { renderMarkdown, splitSettled } from '../../../src/tui/markdown/render.js';
import { createTheme, PLAIN_THEME } from '../../../src/tui/theme.js';

const COLOR = createTheme({ colorLevel: 3, unicode: true });
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('renderMarkdown in plain ASCII', () => {
  const cases: [string, string, string[]][] = [
    ['a heading keeps its level', '## Setup', ['## Setup']],
    ['emphasis keeps its markers', 'a **bold** and _soft_ word', ['a **bold** and _soft_ word']],
    ['inline code keeps its backticks', 'run `npm test` now', ['run `npm test` now']],
    ['a link shows its address', 'see [docs](https://x.dev/a)', ['see docs (https://x.dev/a)']],
    ['a bare link is shown once', '<https://x.dev>', ['https://x.dev']],
    ['an unordered list gets dashes', '- one\n- two', ['- one', '- two']],
    ['an ordered list keeps its start', '3. c\n4. d', ['3. c', '4. d']],
    ['a nested list is indented', '- a\n  - b', ['- a', '  - b']],
    ['a task list shows boxes', '- [x] done\n- [ ] todo', ['- [x] done', '- [ ] todo']],
    ['a code block is fenced', '```ts\nconst a = 1;\n```', ['```ts', '  const a = 1;', '```']],
    ['a quote gets a bar', '> careful', ['| careful']],
    ['paragraphs are separated by one blank line', 'one\n\n\n\ntwo', ['one', '', 'two']],
    ['entities are decoded', 'a &amp; b', ['a & b']],
    ['a table aligns its columns', '| a | bb |\n|---|---|\n| 1 | 2 |', ['a | bb', '--+---', '1 | 2']],
  ];
  it.each(cases)('%s', (_name, source, expected) => {
    expect(renderMarkdown(source, 80, PLAIN_THEME)).toEqual(expected);
  });

  it('wraps prose to the width and never prints a line wider than it', () => {
    const text = 'word '.repeat(60);
    const lines = renderMarkdown(
      `- ${text}\n\n${text}\n\n\`\`\`\n${'x'.repeat(200)}\n\`\`\``,
      30,
      PLAIN_THEME,
    );
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(30);
  });

  it('indents the continuation lines of a wrapped list item under its text', () => {
    const lines = renderMarkdown('- alpha beta gamma delta', 12, PLAIN_THEME);
    expect(lines).toEqual(['- alpha beta', '  gamma', '  delta']);
  });
});

describe('renderMarkdown with colour', () => {
  beforeAll(() => loadHighlighter());

  it('colours a code block of a known language and keeps its text', () => {
    const lines = renderMarkdown('```js\nconst answer = "42";\n```', 80, COLOR);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\u001b\[/);
    expect(stripAnsi(lines[0])).toBe('  const answer = "42";');
  });

  it('prints a code block of an unknown language as plain text', () => {
    expect(renderMarkdown('```nosuchlang\nx := 1\n```', 80, COLOR)).toEqual(['  x := 1']);
  });

  it('styles headings, strong text and inline code without their markers', () => {
    const [heading, , paragraph] = renderMarkdown('# Title\n\nuse **this** and `that`', 80, COLOR);
    expect(stripAnsi(heading)).toBe('Title');
    expect(heading).not.toBe('Title');
    expect(stripAnsi(paragraph)).toBe('use this and that');
  });

  it('keeps styled lines within the width', () => {
    const lines = renderMarkdown(`**${'bold '.repeat(40)}** \`${'code'.repeat(30)}\``, 40, COLOR);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
  });
});

describe('splitSettled', () => {
  const cases: [string, string, string][] = [
    ['a single growing paragraph stays pending', 'Hello wor', ''],
    ['a finished paragraph settles once the next starts', 'One.\n\nTwo', 'One.\n\n'],
    ['an open code fence stays pending with its text', 'Intro\n\n```ts\nconst a', 'Intro\n\n'],
    ['a closed code fence settles when text follows', '```\na\n```\n\nafter', '```\na\n```\n\n'],
    ['trailing blank lines do not settle the last block', 'One.\n\n', ''],
  ];
  it.each(cases)('%s', (_name, source, settled) => {
    const split = splitSettled(source);
    expect(split.settled).toBe(settled);
    expect(split.settled + split.pending).toBe(source);
  });
});
