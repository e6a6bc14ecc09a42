import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page as the build left it (dist/web): index.html and its content-hashed files, held in memory. */
export interface PageAssets {
  html: string;
  files: Map<string, { body: Uint8Array; type: string }>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Written last by scripts/build.mjs, in one rename: the HTML and the names of its content-hashed files, so a
 * build running meanwhile is never half-read.
 */
const MANIFEST = 'manifest.json';

/** dist/web, found from this module's place in the bundle (dist/cli.js or dist/chunks/…). */
export function defaultAssetDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 3; i++) {
    if (existsSync(join(dir, 'web', MANIFEST))) return join(dir, 'web');
    dir = dirname(dir);
  }
  throw new Error('the web page is not built (dist/web is missing): run `npm run build`');
}

/** Reads the page once at start, so a rebuild while the server runs changes nothing it serves. */
export function loadPageAssets(dir: string): PageAssets {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as { html: string; files: string[] };
  const files = new Map<string, { body: Uint8Array; type: string }>();
  for (const name of manifest.files) {
    const extension = name.slice(name.lastIndexOf('.'));
    files.set(name, {
      body: readFileSync(join(dir, name)),
      type: TYPES[extension] ?? 'application/octet-stream',
    });
  }
  return { html: manifest.html, files };
}
