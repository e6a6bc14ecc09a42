// Module hooks that load `.txt` files (the built-in prompts) as `export default "<text>"`, as the bundler and
// vitest do, so `node --import tsx --import ./bench/text-hooks.mjs` can run source that imports them.
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.txt')) return nextLoad(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}

// Imported with --import on the main thread: register this file; loaded again in the hooks thread: only export.
if (isMainThread) register(import.meta.url);
