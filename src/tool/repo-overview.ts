import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import type { Tool } from './tool.js';
import { walkFiles } from './walk.js';

/** Enough for an overview of a large monorepo without stalling on it. */
const MAX_FILES_SCANNED = 50_000;
const TOP_EXTENSIONS = 15;
const README_LINES = 20;
const MAX_MANIFESTS = 40;

const MANIFESTS = new Set([
  'package.json',
  'deno.json',
  'tsconfig.json',
  'Cargo.toml',
  'go.mod',
  'pyproject.toml',
  'setup.py',
  'requirements.txt',
  'Pipfile',
  'Gemfile',
  'composer.json',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'CMakeLists.txt',
  'Makefile',
  'mix.exs',
  'pubspec.yaml',
  'Package.swift',
]);

const schema = lazySchema(() => z.object({}));

export type RepoOverviewInput = z.output<typeof schema>;

interface Census {
  filesScanned: number;
  capped: boolean;
  byExtension: Map<string, number>;
  byTopLevel: Map<string, number>;
  manifests: string[];
}

async function takeCensus(root: string, signal: AbortSignal): Promise<Census> {
  const census: Census = {
    filesScanned: 0,
    capped: false,
    byExtension: new Map(),
    byTopLevel: new Map(),
    manifests: [],
  };
  for await (const file of walkFiles(root, { root, signal })) {
    if (census.filesScanned === MAX_FILES_SCANNED) {
      census.capped = true;
      break;
    }
    census.filesScanned++;
    const relative = path.relative(root, file).split(path.sep).join('/');
    const extension = path.extname(file) || '(none)';
    census.byExtension.set(extension, (census.byExtension.get(extension) ?? 0) + 1);
    const top = relative.includes('/') ? `${relative.slice(0, relative.indexOf('/'))}/` : relative;
    census.byTopLevel.set(top, (census.byTopLevel.get(top) ?? 0) + 1);
    if (MANIFESTS.has(path.basename(file))) census.manifests.push(relative);
  }
  return census;
}

async function readmeHead(root: string, entries: Dirent[]): Promise<string | undefined> {
  const readme = entries.find((entry) => entry.isFile() && /^readme(\.|$)/i.test(entry.name));
  if (!readme) return undefined;
  const text = await readFile(path.join(root, readme.name), 'utf8').catch(() => '');
  return `${readme.name} (first lines):\n${text.split(/\r?\n/).slice(0, README_LINES).join('\n')}`;
}

function countLabel(count: number): string {
  return count === 1 ? '1 file' : `${count} files`;
}

export function createRepoOverviewTool(root: string): Tool<RepoOverviewInput> {
  return {
    name: 'repo_overview',
    description:
      'Summarise the project: top-level entries with file counts, files by extension, package manifests, README start.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.repo_overview,
    safety: 'read',
    subject: () => ({ kind: 'path', paths: [root] }),
    async execute(_input, ctx) {
      let entries: Dirent[];
      try {
        entries = await readdir(root, { withFileTypes: true });
      } catch (error) {
        return fail(
          `cannot read the project root: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const census = await takeCensus(root, ctx.signal);
      if (ctx.signal.aborted) return fail('repo_overview aborted');
      const topLevel = entries
        .filter((entry) => entry.name !== '.git')
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort()
        .map((name) => {
          if (!name.endsWith('/')) return `  ${name}`;
          const count = census.byTopLevel.get(name);
          return `  ${name} (${count ? countLabel(count) : 'ignored or empty'})`;
        });
      const extensions = [...census.byExtension.entries()]
        .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : 1))
        .slice(0, TOP_EXTENSIONS)
        .map(([extension, count]) => `  ${extension}: ${count}`);
      // Shallowest first: the root manifests are the ones that describe the project.
      census.manifests.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
      const manifests = census.manifests.slice(0, MAX_MANIFESTS).map((manifest) => `  ${manifest}`);
      if (census.manifests.length > MAX_MANIFESTS) {
        manifests.push(`  … and ${census.manifests.length - MAX_MANIFESTS} more`);
      }
      const sections = [
        `Project root: ${root}`,
        `Files (excluding .gitignore'd): ${census.filesScanned}${census.capped ? '+ (scan capped)' : ''}`,
        `Top level:\n${topLevel.join('\n') || '  (empty)'}`,
        `Files by extension:\n${extensions.join('\n') || '  (none)'}`,
        `Manifests:\n${manifests.join('\n') || '  (none found)'}`,
      ];
      const readme = await readmeHead(root, entries);
      if (readme) sections.push(readme);
      return ok(sections.join('\n\n'));
    },
  };
}
