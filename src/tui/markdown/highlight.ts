import type { ChalkInstance } from 'chalk';
import type { createEmphasize, Sheet } from 'emphasize';
import type { Theme } from '../theme.js';

type Emphasize = ReturnType<typeof createEmphasize>;

let emphasize: Emphasize | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the grammars (highlight.js's common languages) in the background: the UI draws its first frame without
 * waiting for them, and code printed before they arrive is shown plain.
 */
export function loadHighlighter(): Promise<void> {
  loading ??= import('emphasize').then(({ common, createEmphasize }) => {
    emphasize = createEmphasize(common);
  });
  return loading;
}
const sheets = new WeakMap<ChalkInstance, Sheet>();

/** highlight.js classes to the theme's colours (a palette that reads on dark and light backgrounds). */
function sheetFor(style: ChalkInstance): Sheet {
  let sheet = sheets.get(style);
  if (sheet) return sheet;
  sheet = {
    comment: style.gray,
    quote: style.gray,
    keyword: style.magenta,
    'selector-tag': style.magenta,
    addition: style.green,
    deletion: style.red,
    number: style.yellow,
    literal: style.yellow,
    string: style.green,
    regexp: style.green,
    'meta meta-string': style.green,
    doctag: style.gray,
    title: style.blue,
    'title function_': style.blue,
    'title class_': style.yellow,
    section: style.blue.bold,
    name: style.blue,
    'selector-id': style.blue,
    'selector-class': style.blue,
    attr: style.cyan,
    attribute: style.cyan,
    variable: style.red,
    'template-variable': style.red,
    type: style.yellow,
    symbol: style.cyan,
    bullet: style.cyan,
    subst: style.reset,
    meta: style.gray,
    'meta keyword': style.magenta,
    link: style.blue.underline,
    built_in: style.cyan,
    emphasis: style.italic,
    strong: style.bold,
  };
  sheets.set(style, sheet);
  return sheet;
}

/** Code with syntax colour for a known language; unchanged without colour or for an unknown language. */
export function highlightCode(code: string, language: string, theme: Theme): string {
  if (theme.caps.colorLevel === 0 || language === '' || emphasize === undefined) return code;
  if (!emphasize.registered(language)) return code;
  try {
    return emphasize.highlight(language, code, sheetFor(theme.style)).value;
  } catch {
    return code;
  }
}
