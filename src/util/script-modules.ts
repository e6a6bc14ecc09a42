import { channel } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { type CodeCacheLocation, codeCacheLocation, readCodeCache, writeCodeCache } from './code-cache.js';
import { builtOnFirstUse } from './on-first-use.js';

/**
 * Loads a mode bundle that scripts/build.mjs turned from ES modules into classic scripts, so V8 can take
 * their compiled code from a code cache (Node 20 has no code cache for ES modules; issue 17). Each file is
 * `(function (exports, require, module, __cadreUrl, $cadrI) { ... })`, each `import(` written `$cadrI(`: that and `require`
 * of another file of the bundle load it here, once (one module object per file, as with ES modules);
 * everything else (Node's builtins, packages left out of the bundle) goes to Node's own `require` and
 * `import()`. `__cadreUrl` stands for the file's `import.meta.url`.
 *
 * Nothing on the way loads Node's ES module loader, whose start is a few milliseconds of every cold start:
 * this loader and the stubs are CommonJS, and an `import()` of a builtin or of a mode's `.cjs` stub is
 * answered by `require`. Only other ES modules (the terminal UI, a file named at run time) start it.
 *
 * The caches are made at exit, after the run's code has run, so they hold the functions it compiled too,
 * and only when some file had no usable cache.
 */
export interface ScriptModulesOptions {
  /** The folder of the bundle's files. */
  root: string;
  /** The bundle's files, relative to `root`: only they load as scripts. */
  files: readonly string[];
  cache: CodeCacheLocation;
}

/** Each file as it loads (`{ url }`), for tools that watch what a run loads, as module hooks do for ES modules. */
export const scriptLoaded = channel('cadre:script-module-load');

type ModuleFunction = (
  exports: object,
  require: (specifier: string) => unknown,
  module: { exports: object },
  url: string,
  importModule: (specifier: string) => Promise<unknown>,
) => void;

/** What `import()` of a builtin gives: its named exports and the module itself as `default`. */
function builtinNamespace(module: object): object {
  return Object.freeze(Object.assign(Object.create(null), module, { default: module }));
}

/**
 * Builtins a start seldom uses though many files name them at their top (commander, the sandbox, the
 * tools): each is required when one of its exports is first read (`builtOnFirstUse`), not when a file
 * names it. Every use reads an export at call time (`child_process.spawn(...)`), so the order things run in
 * is unchanged; `cadre -p` that runs no command skips child_process, net's datagram sibling and
 * fs/promises' readline.
 */
const ON_USE = new Set(['node:child_process', 'node:fs/promises']);

/** Characters a file URL keeps as they are: a name made only of them is appended to the folder's URL as is. */
const URL_SAFE = /^[\w./-]+$/;

/**
 * The bundle file a relative specifier names from the file `from` (both relative to the bundle's root, `/`
 * between folders), or `undefined` for a bare name or a path out of the bundle. String work only: path
 * functions cost more than the file they look up on a cold start (issue 17).
 */
export function bundlePath(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const parts = from.split('/');
  parts.pop();
  for (const part of specifier.split('/')) {
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}

export class ScriptModules {
  private readonly modules = new Map<string, { exports: object }>();
  /** A file whose evaluation threw throws the same again, as an ES module does. */
  private readonly failures = new Map<string, unknown>();
  private readonly scripts = new Map<string, Script>();
  private readonly cached: Map<string, Buffer>;
  /** The bundle's files by their names relative to the root, with `/` between folders. */
  private readonly files: ReadonlySet<string>;
  private readonly rootUrl: string;
  /** Node's `require` from each folder of the bundle that asked for something outside it. */
  private readonly requires = new Map<string, NodeJS.Require>();
  /** The stand-ins of the builtins loaded on use, one each. */
  private readonly onUse = new Map<string, object>();
  /** The files compiled without a usable cache (none, or one V8 rejected): the caches are written at exit. */
  readonly compiledFromSource: string[] = [];

  constructor(private readonly options: ScriptModulesOptions) {
    this.cached = readCodeCache(options.cache);
    this.files = new Set(options.files.map((file) => file.replaceAll(sep, '/')));
    this.rootUrl = pathToFileURL(join(options.root, '/')).href;
  }

  /**
   * Writes the caches at process exit when this run compiled something the cache did not hold, and only
   * after a run that succeeded: bad input (exit 2) must leave no file behind (SPEC 17), not even the key.
   */
  saveAtExit(): this {
    process.once('exit', (code) => {
      if (code === 0) this.save();
    });
    return this;
  }

  /** Loads the bundle file at `file` (a path), once. */
  load(file: string): object {
    return this.loadName(relative(this.options.root, file).replaceAll(sep, '/'));
  }

  /** The caches of every file compiled in this run (with the functions compiled since), and the others kept. */
  save(): void {
    if (this.compiledFromSource.length === 0) return;
    this.compiledFromSource.length = 0;
    const entries = new Map(this.cached);
    for (const [name, script] of this.scripts) entries.set(name, script.createCachedData());
    writeCodeCache(this.options.cache, entries);
  }

  private loadName(name: string): object {
    if (this.failures.has(name)) throw this.failures.get(name);
    const known = this.modules.get(name);
    if (known) return known.exports;
    const file = `${this.options.root}/${name}`;
    const cachedData = this.cached.get(name);
    const script = new Script(readFileSync(file, 'utf8'), { filename: file, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) this.compiledFromSource.push(name);
    this.scripts.set(name, script);
    const module = { exports: {} };
    this.modules.set(name, module);
    const url = URL_SAFE.test(name) ? this.rootUrl + name : pathToFileURL(file).href;
    if (scriptLoaded.hasSubscribers) scriptLoaded.publish({ url });
    const requireFrom = (specifier: string): unknown => {
      const inBundle = this.inBundle(name, specifier);
      if (inBundle) return this.loadName(inBundle);
      if (ON_USE.has(specifier)) return this.builtinOnUse(specifier);
      return this.nodeRequire(file)(specifier);
    };
    const importFrom = async (specifier: string): Promise<unknown> => {
      const inBundle = this.inBundle(name, specifier);
      if (inBundle) return this.loadName(inBundle);
      if (specifier.startsWith('node:')) return builtinNamespace(this.nodeRequire(file)(specifier));
      if (specifier.endsWith('.cjs')) return this.nodeRequire(file)(specifier);
      // Resolved as the module's own `import()` would: a path from the file, a name from node_modules above.
      return import(/^\.{0,2}\//.test(specifier) ? new URL(specifier, url).href : specifier);
    };
    const run = script.runInThisContext() as ModuleFunction;
    try {
      run.call(undefined, module.exports, requireFrom, module, url, importFrom);
    } catch (error) {
      this.failures.set(name, error);
      throw error;
    }
    return module.exports;
  }

  private builtinOnUse(name: string): object {
    let standIn = this.onUse.get(name);
    if (!standIn) {
      standIn = builtOnFirstUse(() => this.nodeRequire(this.options.root)(name) as object);
      this.onUse.set(name, standIn);
    }
    return standIn;
  }

  private nodeRequire(file: string): NodeJS.Require {
    const dir = dirname(file);
    let found = this.requires.get(dir);
    if (!found) {
      found = createRequire(file);
      this.requires.set(dir, found);
    }
    return found;
  }

  private inBundle(from: string, specifier: string): string | undefined {
    const name = bundlePath(from, specifier);
    return name !== undefined && this.files.has(name) ? name : undefined;
  }
}

/**
 * A mode's entry, from the CommonJS stub scripts/build.mjs writes beside it (`stub` is its path): its
 * bundle loaded as scripts with the code cache of this cadre version, bundle and Node, written at exit when
 * it was missing or unusable.
 */
export function loadModeScripts(
  stub: string,
  mode: string,
  entry: string,
  bundle: string,
  version: string,
  files: readonly string[],
): object {
  const root = dirname(stub);
  const cache = codeCacheLocation(process.env, mode, bundle, version);
  return new ScriptModules({ root, files, cache }).saveAtExit().load(join(root, entry));
}
