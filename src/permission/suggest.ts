import { relative } from 'node:path';
import type { PermissionSubject } from '../tool/tool.js';
import { isInside } from './paths.js';
import { firstCommandWords } from './shell-lexer.js';

/** Commands whose second word is a subcommand, so `git checkout main` suggests `git checkout *`. */
const SUBCOMMAND_TOOLS = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'make',
  'gh',
  'terraform',
  'helm',
  'brew',
  'apt',
  'apt-get',
  'dotnet',
  'mvn',
  'gradle',
  'deno',
]);

/**
 * The "always allow" rule offered on an ask (SPEC 6.6): `bash(git checkout *)` for `git checkout main`,
 * `edit(src/**)` for a file in src/, `webfetch(domain:host)`, `task(name)`.
 */
export function suggestRule(tool: string, subject: PermissionSubject, root = '/', home = ''): string {
  switch (subject.kind) {
    case 'bash':
      return `${tool}(${suggestBashPattern(subject.command)})`;
    case 'path':
      return `${tool}(${suggestPathPattern(subject.paths[0] ?? '', root, home)})`;
    case 'url':
      return `${tool}(domain:${hostOf(subject.url)})`;
    case 'name':
      return `${tool}(${subject.value})`;
    case 'none':
      return tool;
  }
}

function suggestBashPattern(command: string): string {
  const { assignments: head, words } = firstCommandWords(command);
  if (words.length === 0) return command.trim() || '*';
  const second = words[1];
  if (second !== undefined && SUBCOMMAND_TOOLS.has(words[0]) && /^[a-z][a-z0-9:_-]*$/.test(second)) {
    return [...head, words[0], second, '*'].join(' ');
  }
  return [...head, words[0], '*'].join(' ');
}

function suggestPathPattern(path: string, root: string, home: string): string {
  if (isInside(path, root) && path !== root) {
    const rel = relative(root, path);
    const slash = rel.lastIndexOf('/');
    return slash === -1 ? rel : `${rel.slice(0, slash)}/**`;
  }
  const dir = path.slice(0, Math.max(path.lastIndexOf('/'), 0)) || '/';
  if (home && isInside(dir, home)) return dir === home ? '~/**' : `~/${relative(home, dir)}/**`;
  return dir === '/' ? path : `${dir}/**`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
