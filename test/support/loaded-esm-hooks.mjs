// Module hooks registered by loaded-modules.mjs: each ES module file the process loads is appended, one a
// line as "<epoch ms> <URL>", to $CADRE_TEST_LOADED_FILE.esm (the hooks run on their own thread, so they
// write it directly).
import { appendFileSync } from 'node:fs';

const file = process.env.CADRE_TEST_LOADED_FILE;

export async function load(url, context, next) {
  if (file && url.startsWith('file:')) appendFileSync(`${file}.esm`, `${Date.now()} ${url}\n`);
  return next(url, context);
}
