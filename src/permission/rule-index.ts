import type { PermissionSubject } from '../tool/tool.js';
import type { PolicyLayer } from './decide.js';
import { type MatchContext, pathPatternPrefix, toolMatches, urlHost, urlPatternMatches } from './match.js';
import type { Rule } from './rules.js';

/** A rule with its layer, in composed order. */
export interface IndexedRule {
  rule: Rule;
  layer: PolicyLayer;
}

interface Index {
  ruleCount: number;
  root: string;
  home: string;
  byKey: Map<string, IndexedRule[]>;
}

const indexes = new WeakMap<PolicyLayer[], Index>();

/**
 * The rules that can match a call of `tool` on `subject`, in composed order. Only a narrowing: the
 * caller still tests each candidate. Rules are bucketed by what tells most of them apart cheaply, so a
 * decision over a thousand rules looks at the few written for that command, directory or host (SPEC 18:
 * 1,000 rules × 100,000 checks; issue 17: 500 rules sharing first words): bash rules by the pattern's
 * first word, path rules by the literal directory they start with, domain rules by host.
 */
export function candidateRules(
  layers: PolicyLayer[],
  tool: string,
  subject: PermissionSubject,
  context: MatchContext,
): IndexedRule[] {
  const ruleCount = layers.reduce((sum, layer) => sum + layer.rules.length, 0);
  let index = indexes.get(layers);
  if (!index || index.ruleCount !== ruleCount || index.root !== context.root || index.home !== context.home) {
    index = { ruleCount, root: context.root, home: context.home, byKey: new Map() };
    indexes.set(layers, index);
  }
  const narrowing = narrowingOf(subject, context);
  const key = `${tool}\0${narrowing.key}`;
  let candidates = index.byKey.get(key);
  if (!candidates) {
    candidates = [];
    for (const layer of layers) {
      for (const rule of layer.rules) {
        if (!toolMatches(rule.tool, tool)) continue;
        if (rule.pattern !== undefined && !narrowing.keeps(rule.pattern)) continue;
        candidates.push({ rule, layer });
      }
    }
    if (index.byKey.size > 50_000) index.byKey.clear();
    index.byKey.set(key, candidates);
  }
  return candidates;
}

/** The bucket a subject falls in, and which rule patterns can match something in that bucket. */
function narrowingOf(
  subject: PermissionSubject,
  context: MatchContext,
): { key: string; keeps(pattern: string): boolean } {
  switch (subject.kind) {
    case 'bash': {
      const word = firstWord(subject.command);
      return { key: `b\0${word}`, keeps: (pattern) => sameFirstWord(pattern, word) };
    }
    case 'path': {
      if (subject.paths.length !== 1) break;
      const path = subject.paths[0];
      // Every path in this directory starts with `dir`: a rule whose literal directory is neither a
      // start of it nor below it matches none of them.
      const dir = path.slice(0, path.lastIndexOf('/') + 1);
      return {
        key: `p\0${dir}`,
        keeps: (pattern) => {
          const prefix = pathPatternPrefix(pattern, context);
          return dir.startsWith(prefix) || prefix.startsWith(dir);
        },
      };
    }
    case 'url': {
      const host = urlHost(subject.url);
      if (host === undefined) break;
      // A domain rule depends on the host alone; other URL patterns see the whole URL.
      return {
        key: `u\0${host}`,
        keeps: (pattern) => !pattern.startsWith('domain:') || urlPatternMatches(pattern, subject.url),
      };
    }
  }
  return { key: '', keeps: () => true };
}

function firstWord(text: string): string {
  const space = text.indexOf(' ');
  return space === -1 ? text : text.slice(0, space);
}

/** False only when the pattern's literal first word cannot be the command's first word. */
function sameFirstWord(pattern: string, word: string): boolean {
  const patternWord = firstWord(pattern.endsWith(':*') ? pattern.slice(0, -2) : pattern);
  if (patternWord.includes('*')) return true;
  return patternWord === word;
}
