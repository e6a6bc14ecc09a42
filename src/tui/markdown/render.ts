import { lexer, type Token, type Tokens } from 'marked';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import type { Theme } from '../theme.js';
import { highlightCode } from './highlight.js';

/** Lines of at most `width` columns, styled with the theme: what a transcript entry prints. */
export function renderMarkdown(source: string, width: number, theme: Theme): string[] {
  const lines = renderBlocks(lexer(source, { gfm: true }), Math.max(8, width), theme);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Splits streaming text where every block before the cut is finished (another block has started after it),
 * so the settled part can be printed once while only the last block keeps changing.
 */
export function splitSettled(source: string): { settled: string; pending: string } {
  const tokens = lexer(source, { gfm: true });
  if (tokens.map((t) => t.raw).join('') !== source) return { settled: '', pending: source };
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last].type === 'space') last--;
  if (last <= 0) return { settled: '', pending: source };
  const settled = tokens
    .slice(0, last)
    .map((t) => t.raw)
    .join('');
  return { settled, pending: source.slice(settled.length) };
}

function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, width, { hard: true, trim: true }).split('\n');
}

function renderBlocks(tokens: readonly Token[], width: number, theme: Theme): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = renderBlock(token, width, theme);
    if (lines === null) continue;
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
    out.push(...lines);
  }
  return out;
}

function renderBlock(token: Token, width: number, theme: Theme): string[] | null {
  const { style } = theme;
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const t = token as Tokens.Heading;
      const text = renderInline(t.tokens, theme);
      const styled = t.depth <= 2 ? style.bold.underline(text) : style.bold(text);
      // Without styles the level still shows.
      return wrap(theme.caps.colorLevel === 0 ? `${'#'.repeat(t.depth)} ${text}` : styled, width);
    }
    case 'paragraph':
      return wrap(renderInline((token as Tokens.Paragraph).tokens, theme), width);
    case 'text': {
      const t = token as Tokens.Text;
      return wrap(t.tokens ? renderInline(t.tokens, theme) : t.text, width);
    }
    case 'code':
      return renderCode(token as Tokens.Code, width, theme);
    case 'list':
      return renderList(token as Tokens.List, width, theme);
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, width - 2, theme);
      return inner.map((line) => `${style.dim(theme.glyphs.bar)} ${style.italic(line)}`);
    }
    case 'hr':
      return [style.dim(theme.glyphs.rule.repeat(Math.min(width, 40)))];
    case 'table':
      return renderTable(token as Tokens.Table, width, theme);
    case 'html':
      return wrap(style.dim((token as Tokens.HTML).text.trimEnd()), width);
    default:
      return 'raw' in token && typeof token.raw === 'string' ? wrap(token.raw.trimEnd(), width) : null;
  }
}

function renderCode(token: Tokens.Code, width: number, theme: Theme): string[] {
  const code = token.text.replace(/\t/g, '  ');
  const language = (token.lang ?? '').split(/\s/)[0];
  const highlighted = highlightCode(code, language, theme);
  const inner = width - 2;
  const out: string[] = [];
  for (const line of highlighted.split('\n')) {
    // Code keeps its indentation; long lines are cut into pieces rather than re-flowed.
    const pieces =
      stringWidth(line) > inner ? wrapAnsi(line, inner, { hard: true, trim: false }).split('\n') : [line];
    for (const piece of pieces) out.push(`  ${piece}`);
  }
  if (theme.caps.colorLevel === 0) {
    // Without colour the fence is what tells code from prose.
    const fence = `\`\`\`${language}`;
    return [fence, ...out, '```'];
  }
  return out;
}

function renderList(token: Tokens.List, width: number, theme: Theme): string[] {
  const out: string[] = [];
  const start = typeof token.start === 'number' ? token.start : 1;
  const bullet = theme.caps.unicode ? '•' : '-';
  token.items.forEach((item, index) => {
    let marker = token.ordered ? `${start + index}.` : bullet;
    if (item.task) marker += item.checked ? ' [x]' : ' [ ]';
    const indent = stringWidth(marker) + 1;
    const body = renderBlocks(
      item.tokens.filter((t) => t.type !== 'checkbox'),
      width - indent,
      theme,
    ).filter((line, i, all) => line !== '' || (item.loose && i < all.length - 1));
    const first = body.shift() ?? '';
    out.push(`${theme.style.dim(marker)} ${first}`);
    for (const line of body) out.push(line === '' ? '' : `${' '.repeat(indent)}${line}`);
    if (token.loose && index < token.items.length - 1) out.push('');
  });
  return out;
}

function renderTable(token: Tokens.Table, width: number, theme: Theme): string[] {
  const rows = [token.header, ...token.rows].map((row) =>
    row.map((cell) => renderInline(cell.tokens, theme)),
  );
  const columns = token.header.length;
  const natural = Array.from({ length: columns }, (_, c) =>
    Math.max(...rows.map((row) => stringWidth(row[c] ?? ''))),
  );
  const separator = ` ${theme.glyphs.bar} `;
  const available = width - separator.length * (columns - 1);
  const total = natural.reduce((a, b) => a + b, 0);
  // Too wide: every column gets its share of the width and its cells wrap inside it.
  const widths =
    total <= available ? natural : natural.map((n) => Math.max(3, Math.floor((n / total) * available)));
  const out: string[] = [];
  rows.forEach((row, r) => {
    const cells = row.map((cell, c) => wrapAnsi(cell, widths[c], { hard: true, trim: true }).split('\n'));
    const height = Math.max(...cells.map((lines) => lines.length));
    for (let i = 0; i < height; i++) {
      const line = cells
        .map((lines, c) => {
          const text = lines[i] ?? '';
          return text + ' '.repeat(Math.max(0, widths[c] - stringWidth(text)));
        })
        .join(theme.style.dim(separator))
        .trimEnd();
      out.push(r === 0 ? theme.style.bold(line) : line);
    }
    if (r === 0)
      out.push(
        theme.style.dim(
          widths
            .map((w) => theme.glyphs.rule.repeat(w))
            .join(`${theme.glyphs.rule}${theme.glyphs.rule === '-' ? '+' : '┼'}${theme.glyphs.rule}`),
        ),
      );
  });
  return out.flatMap((line) =>
    stringWidth(line) > width ? wrapAnsi(line, width, { hard: true }).split('\n') : [line],
  );
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

function decode(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
}

function renderInline(tokens: readonly Token[] | undefined, theme: Theme): string {
  if (!tokens) return '';
  const { style } = theme;
  const plain = theme.caps.colorLevel === 0;
  return tokens
    .map((token): string => {
      switch (token.type) {
        case 'text':
        case 'escape': {
          const t = token as Tokens.Text;
          return t.tokens ? renderInline(t.tokens, theme) : decode(t.text);
        }
        case 'strong':
          return plain
            ? `**${renderInline((token as Tokens.Strong).tokens, theme)}**`
            : style.bold(renderInline((token as Tokens.Strong).tokens, theme));
        case 'em':
          return plain
            ? `_${renderInline((token as Tokens.Em).tokens, theme)}_`
            : style.italic(renderInline((token as Tokens.Em).tokens, theme));
        case 'del':
          return plain
            ? `~~${renderInline((token as Tokens.Del).tokens, theme)}~~`
            : style.strikethrough(renderInline((token as Tokens.Del).tokens, theme));
        case 'codespan': {
          const code = decode((token as Tokens.Codespan).text);
          return plain ? `\`${code}\`` : style.cyan(code);
        }
        case 'link': {
          const t = token as Tokens.Link;
          const text = renderInline(t.tokens, theme);
          const shown = style.blue.underline(text);
          return t.href === t.text || t.href === `mailto:${t.text}`
            ? shown
            : `${shown} ${style.dim(`(${t.href})`)}`;
        }
        case 'image': {
          const t = token as Tokens.Image;
          return style.dim(`[image: ${t.text || t.href}]`);
        }
        case 'br':
          return '\n';
        case 'html':
          return style.dim((token as Tokens.HTML).text);
        default:
          return 'raw' in token && typeof token.raw === 'string' ? token.raw : '';
      }
    })
    .join('');
}
