import { Chalk, type ChalkInstance } from 'chalk';

/** What the terminal can show: colour depth and whether it draws unicode glyphs. */
export interface TerminalCapabilities {
  /** 0 none, 1 basic 16 colours, 2 256 colours, 3 truecolor. */
  colorLevel: 0 | 1 | 2 | 3;
  unicode: boolean;
}

/**
 * Reads the environment the way terminal programs agree on: `NO_COLOR` (any non-empty value) turns colour off,
 * `FORCE_COLOR` turns it on, `TERM=dumb` has neither colour nor unicode, and a locale that is not UTF-8 gets
 * plain ASCII.
 */
export function detectCapabilities(env: NodeJS.ProcessEnv, isTTY: boolean): TerminalCapabilities {
  const term = env.TERM ?? '';
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  const dumb = term === 'dumb';
  const unicode = !dumb && (locale === '' ? term !== 'linux' : /utf-?8/i.test(locale));
  return { colorLevel: colorLevel(env, isTTY, dumb), unicode };
}

function colorLevel(
  env: NodeJS.ProcessEnv,
  isTTY: boolean,
  dumb: boolean,
): TerminalCapabilities['colorLevel'] {
  if (env.NO_COLOR) return 0;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== '') {
    if (forced === '0' || forced === 'false') return 0;
    return forced === '2' ? 2 : forced === '3' ? 3 : 1;
  }
  if (!isTTY || dumb) return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (/256/.test(env.TERM ?? '')) return 2;
  return 1;
}

/** The glyphs the UI draws, with an ASCII twin for terminals without unicode. */
export interface Glyphs {
  tool: string;
  chain: string;
  bullet: string;
  ok: string;
  fail: string;
  ellipsis: string;
  prompt: string;
  bar: string;
  running: string;
  queued: string;
  arrow: string;
  rule: string;
  dot: string;
}

const UNICODE_GLYPHS: Glyphs = {
  tool: '▸',
  chain: '›',
  bullet: '●',
  ok: '✓',
  fail: '✗',
  ellipsis: '…',
  prompt: '›',
  bar: '│',
  running: '◐',
  queued: '◌',
  arrow: '→',
  rule: '─',
  dot: '·',
};

const ASCII_GLYPHS: Glyphs = {
  tool: '>',
  chain: '>',
  bullet: '*',
  ok: '+',
  fail: 'x',
  ellipsis: '...',
  prompt: '>',
  bar: '|',
  running: '~',
  queued: '.',
  arrow: '->',
  rule: '-',
  dot: '|',
};

/** Styles and glyphs every renderer takes: one value, so `NO_COLOR` and ASCII are decided in one place. */
export interface Theme {
  caps: TerminalCapabilities;
  glyphs: Glyphs;
  /** A chalk whose level follows the capabilities: level 0 returns text unchanged. */
  style: ChalkInstance;
  /** Ink border style for boxes. */
  border: 'round' | 'classic';
}

export function createTheme(caps: TerminalCapabilities): Theme {
  return {
    caps,
    glyphs: caps.unicode ? UNICODE_GLYPHS : ASCII_GLYPHS,
    style: new Chalk({ level: caps.colorLevel }),
    border: caps.unicode ? 'round' : 'classic',
  };
}

/** Plain text, plain ASCII: what tests and dumb terminals get. */
export const PLAIN_THEME = createTheme({ colorLevel: 0, unicode: false });
