import picomatch from 'picomatch';
import type { PermissionSubject } from '../tool/tool.js';
import { canonicalHost } from './host.js';
import { isInside } from './paths.js';
import type { Rule } from './rules.js';

/** Where relative and `~/` path patterns are anchored. */
export interface MatchContext {
  root: string;
  home: string;
}

const regexCache = new Map<string, RegExp>();

function cached<T>(cache: Map<string, T>, key: string, build: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = build();
    if (cache.size > 10_000) cache.clear();
    cache.set(key, value);
  }
  return value;
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** `*` in a tool name matches any characters (`mcp__fs__*`, `*`). */
export function toolMatches(ruleTool: string, tool: string): boolean {
  if (!ruleTool.includes('*')) return ruleTool === tool;
  const regex = cached(
    regexCache,
    `tool:${ruleTool}`,
    () => new RegExp(`^${ruleTool.split('*').map(escapeRegex).join('.*')}$`),
  );
  return regex.test(tool);
}

/**
 * `*` matches any characters; a trailing ` *` also matches nothing (`git diff *` matches `git diff`), and
 * the space before it is a word boundary (`ls *` does not match `lsof`). Claude Code's `git diff:*` is
 * read as `git diff *`.
 */
export function bashPatternMatches(pattern: string, command: string): boolean {
  const compiled = cached(bashPatterns, pattern, () => compileBashPattern(pattern));
  // Most rules share a first word with the command and differ later: the literal start rejects them.
  return command.startsWith(compiled.literal) && compiled.regex.test(command);
}

/** A bash pattern's expression and the literal text every command it matches starts with. */
interface BashPattern {
  regex: RegExp;
  literal: string;
}

const bashPatterns = new Map<string, BashPattern>();

function compileBashPattern(pattern: string): BashPattern {
  const normalised = pattern.endsWith(':*') ? `${pattern.slice(0, -2)} *` : pattern;
  if (normalised === '*') return { regex: /^[\s\S]*$/, literal: '' };
  const trailing = normalised.endsWith(' *');
  const body = trailing ? normalised.slice(0, -2) : normalised;
  const parts = body.split('*');
  const source = parts.map(escapeRegex).join('[\\s\\S]*');
  return { regex: new RegExp(`^${source}${trailing ? '(?: [\\s\\S]*)?' : ''}$`), literal: parts[0] };
}

/**
 * Gitignore-style match of an absolute, symlink-resolved path. Relative patterns are anchored at the
 * project root and never match outside it; a pattern without `/` matches a name at any depth; a matched
 * directory covers everything below it. `/abs` and `~/…` patterns are absolute.
 */
export function pathPatternMatches(pattern: string, path: string, context: MatchContext): boolean {
  if (pattern === '*' || pattern === '**') return isInside(path, context.root);
  if (pattern.startsWith('~/') || pattern === '~') {
    return absoluteGlob(`${context.home}${pattern.slice(1)}`).test(path);
  }
  if (pattern.startsWith('/')) return absoluteGlob(pattern).test(path);
  if (!isInside(path, context.root) || path === context.root) return false;
  const relative = path.slice(context.root.endsWith('/') ? context.root.length : context.root.length + 1);
  return relativeGlob(pattern).test(relative);
}

/**
 * The directory every absolute path `pattern` matches starts with ('' when any may): what a rule index
 * needs to set aside path rules written for other directories without running their expressions.
 */
export function pathPatternPrefix(pattern: string, context: MatchContext): string {
  if (pattern === '*' || pattern === '**') return context.root;
  if (pattern.startsWith('~/') || pattern === '~')
    return absoluteGlob(`${context.home}${pattern.slice(1)}`).literal;
  if (pattern.startsWith('/')) return absoluteGlob(pattern).literal;
  const literal = relativeGlob(pattern).literal;
  return literal === '' ? context.root : `${context.root.replace(/\/$/, '')}/${literal}`;
}

/** A glob's expression and the literal directory every path it matches starts with. */
interface Glob {
  literal: string;
  test(path: string): boolean;
}

const absoluteGlobs = new Map<string, Glob>();
const relativeGlobs = new Map<string, Glob>();
/** Where picomatch may read something other than a literal character. */
const GLOB_SYNTAX = /[*?[\]{}()!+@|\\]/;

/**
 * A glob and everything below what it matches, as one regular expression, behind a test of the literal
 * directories it starts with: rules for many packages (`packages/p3/src/**`) are told apart by a prefix.
 */
function globWithDescendants(glob: string): Glob {
  const self = picomatch.makeRe(glob, { dot: true });
  const below = picomatch.makeRe(`${glob}/**`, { dot: true });
  const regex = new RegExp(`(?:${self.source})|(?:${below.source})`);
  const syntax = glob.search(GLOB_SYNTAX);
  const literalPart = syntax === -1 ? glob : glob.slice(0, syntax);
  const literal = literalPart.slice(0, Math.max(0, literalPart.lastIndexOf('/')));
  return { literal, test: (path) => path.startsWith(literal) && regex.test(path) };
}

function absoluteGlob(pattern: string): Glob {
  return cached(absoluteGlobs, pattern, () => globWithDescendants(pattern.replace(/\/+$/, '')));
}

function relativeGlob(pattern: string): Glob {
  return cached(relativeGlobs, pattern, () => {
    const base = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
    return globWithDescendants(base.includes('/') ? base.replace(/^\//, '') : `**/${base}`);
  });
}

/**
 * `domain:example.com` matches the host and its subdomains; `domain:*.example.com` only subdomains. Both
 * sides are canonical (canonicalHost), so `http://2130706433/` is `127.0.0.1` and `EVIL.com.` is `evil.com`.
 */
export function urlPatternMatches(pattern: string, url: string): boolean {
  const host = cachedHost(url);
  if (host === undefined) return false;
  if (!pattern.startsWith('domain:')) return globText(pattern, url);
  const written = pattern.slice('domain:'.length);
  const wildcard = written.startsWith('*.');
  const domain = cachedHost(wildcard ? written.slice(2) : written);
  if (domain === undefined) return false;
  if (wildcard) return host.endsWith(`.${domain}`);
  return host === domain || host.endsWith(`.${domain}`);
}

/** The canonical host of a URL (or a rule's domain), undefined when it has none. */
export function urlHost(url: string): string | undefined {
  return cachedHost(url);
}

const hosts = new Map<string, string | null>();

/** canonicalHost, parsed once per URL or rule domain (the URL parser is the cost of a webfetch check). */
function cachedHost(text: string): string | undefined {
  return cached(hosts, text, () => canonicalHost(text) ?? null) ?? undefined;
}

function globText(pattern: string, text: string): boolean {
  const regex = cached(
    regexCache,
    `text:${pattern}`,
    () => new RegExp(`^${pattern.split('*').map(escapeRegex).join('[\\s\\S]*')}$`),
  );
  return regex.test(text);
}

/** True when `rule` applies to a call of `tool` on `subject` (paths already absolute and real). */
export function ruleMatches(
  rule: Rule,
  tool: string,
  subject: PermissionSubject,
  context: MatchContext,
): boolean {
  if (!toolMatches(rule.tool, tool)) return false;
  if (rule.insideOnly && subject.kind === 'path' && !subject.paths.every((p) => isInside(p, context.root)))
    return false;
  if (rule.pattern === undefined) return true;
  switch (subject.kind) {
    case 'bash':
      return bashPatternMatches(rule.pattern, subject.command);
    case 'path':
      return (
        subject.paths.length > 0 &&
        subject.paths.every((p) => pathPatternMatches(rule.pattern ?? '', p, context))
      );
    case 'url':
      return urlPatternMatches(rule.pattern, subject.url);
    case 'name':
      return globText(rule.pattern, subject.value);
    case 'none':
      return rule.pattern === '*';
  }
}
