import type { CommandClass } from './command-class.js';

/** `sed` without `-i` reads, unless its script writes files (`w`) or runs commands (`e`). */
export function classifySed(args: string[]): CommandClass {
  if (args.some((a) => /^(-i|--in-place)/.test(a) || /^-[a-zA-Z]*i/.test(a))) {
    return { safety: 'write', why: 'sed -i edits files' };
  }
  const scripts: string[] = [];
  let firstPositional: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--') break;
    if (/^-[a-zA-Z]*f|^--f/.test(arg)) {
      return { safety: 'destructive', opaque: true, why: 'sed -f runs a script the analyser cannot see' };
    }
    const short = /^-[a-zA-Z]*e(.*)$/s.exec(arg);
    if (short && !arg.startsWith('--')) {
      if (short[1] !== '') scripts.push(short[1]);
      else scripts.push(args[++index] ?? '');
      continue;
    }
    const long = /^--e[a-z]*(=(.*))?$/s.exec(arg);
    if (long) {
      scripts.push(long[1] !== undefined ? (long[2] ?? '') : (args[++index] ?? ''));
      continue;
    }
    if (/^-[a-zA-Z]*l$|^--line-length$/.test(arg)) index++;
    else if (!arg.startsWith('-')) firstPositional ??= arg;
  }
  if (scripts.length === 0) scripts.push(firstPositional ?? '');
  let effect: SedEffect = 'read';
  for (const script of scripts) effect = worseEffect(effect, sedScriptEffect(script));
  switch (effect) {
    case 'read':
      return { safety: 'read', why: 'sed without -i is read-only' };
    case 'write':
      return { safety: 'write', why: 'sed script writes files' };
    case 'exec':
      return { safety: 'destructive', opaque: true, why: 'sed script runs shell commands' };
    case 'unknown':
      return { safety: 'destructive', opaque: true, why: 'sed script not understood' };
  }
}

/** What a sed script may do: only print (read), write files (`w`, `W`, `s///w`), or run commands (`e`, `s///e`). */
type SedEffect = 'read' | 'write' | 'exec' | 'unknown';

const SED_EFFECT_ORDER: SedEffect[] = ['read', 'write', 'exec', 'unknown'];
const SED_SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', '{', '}']);
const SED_WITH_NUMBER = new Set(['q', 'Q', 'l', 'L']);
const SED_LABEL = new Set([':', 'b', 't', 'T', 'v']);

function worseEffect(a: SedEffect, b: SedEffect): SedEffect {
  return SED_EFFECT_ORDER.indexOf(a) >= SED_EFFECT_ORDER.indexOf(b) ? a : b;
}

/**
 * Scans a GNU sed script command by command (addresses, `s`/`y` with any delimiter, text and file
 * arguments). Anything it does not recognise is `unknown`, which callers treat as not understood.
 */
function sedScriptEffect(script: string): SedEffect {
  let effect: SedEffect = 'read';
  let i = 0;
  const n = script.length;
  const toLineEnd = () => {
    while (i < n && script[i] !== '\n') i++;
  };
  /** Reads a delimited part (`/re/`), honouring backslash escapes; false when unterminated. */
  const delimited = (delim: string, regex: boolean): boolean => {
    while (i < n && script[i] !== delim) {
      if (regex && script[i] === '[') {
        // A bracket expression: the delimiter inside it is literal (`s/[/]/x/`).
        i++;
        if (script[i] === '^') i++;
        if (script[i] === ']') i++;
        while (i < n && script[i] !== ']') {
          if (script[i] === '[' && /[:.=]/.test(script[i + 1] ?? '')) {
            const close = script.indexOf(`${script[i + 1]}]`, i + 2);
            if (close === -1) return false;
            i = close + 2;
          } else if (script[i] === '\n') return false;
          else i++;
        }
        if (i >= n) return false;
        i++;
        continue;
      }
      if (script[i] === '\\') i++;
      else if (script[i] === '\n' && delim !== '\n') return false;
      i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/[0-9]/.test(script[i] ?? '')) {
      while (/[0-9~]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '$') i++;
    else if (script[i] === '/') {
      i++;
      if (!delimited('/', true)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '\\') {
      const delim = script[i + 1];
      if (delim === undefined) return false;
      i += 2;
      if (!delimited(delim, true)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    }
    return true;
  };
  while (i < n) {
    const c = script[i];
    if (/[\s;]/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      toLineEnd();
      continue;
    }
    if (!address()) return 'unknown';
    if (script[i] === ',') {
      i++;
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return 'unknown';
    }
    while (script[i] === ' ' || script[i] === '\t' || script[i] === '!') i++;
    const command = script[i];
    if (command === undefined) return 'unknown';
    i++;
    if (SED_SIMPLE.has(command)) continue;
    if (SED_WITH_NUMBER.has(command)) {
      while (/[\s0-9]/.test(script[i] ?? '') && script[i] !== '\n') i++;
      continue;
    }
    if (SED_LABEL.has(command)) {
      while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
      continue;
    }
    if (command === 'a' || command === 'i' || command === 'c') {
      // Text runs to the end of the line; a backslash-newline continues it.
      while (i < n && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
      continue;
    }
    if (command === 'r' || command === 'R') {
      toLineEnd();
      continue;
    }
    if (command === 'w' || command === 'W') {
      effect = worseEffect(effect, 'write');
      toLineEnd();
      continue;
    }
    if (command === 'e') return 'exec';
    if (command === 's' || command === 'y') {
      const delim = script[i];
      if (delim === undefined || delim === '\\' || delim === '\n') return 'unknown';
      i++;
      if (!delimited(delim, command === 's') || !delimited(delim, false)) return 'unknown';
      if (command === 'y') continue;
      while (i < n && /[gpiImM0-9ew]/.test(script[i])) {
        const flag = script[i];
        i++;
        if (flag === 'e') return 'exec';
        if (flag === 'w') {
          effect = worseEffect(effect, 'write');
          toLineEnd();
        }
      }
      continue;
    }
    return 'unknown';
  }
  return effect;
}
