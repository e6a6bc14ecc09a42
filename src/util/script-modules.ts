import { channel } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { type CodeCacheLocation, codeCacheLocation, readCodeCache, writeCodeCache } from './code-cache.js';

/**
 * Loads a mode bundle that scripts/build.mjs turned from ES modules into classic scripts, so V8 can take
 * their compiled code from a code cache (Node 20 has no code cache for ES modules; issue 17). Each file is
 * `(function (exports, require, module, __cadreUrl, $cadrI) { ... })`, each `import(` written `$cadrI(`: that and `require`
 * of another file of the bundle load it here, once (one module object per file, as with ES modules);
 * everything else (Node's builtins, packages left out of the bundle) goes to Node's own `require` and
 * `import()`. `__cadreUrl` stands for the file's `import.meta.url`.
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

export class ScriptModules {
  private readonly modules = new Map<string, { exports: object }>();
  /** A file whose evaluation threw throws the same again, as an ES module does. */
  private readonly failures = new Map<string, unknown>();
  private readonly scripts = new Map<string, Script>();
  private readonly cached: Map<string, Buffer>;
  private readonly files: ReadonlySet<string>;
  /** The files compiled without a usable cache (none, or one V8 rejected): the caches are written at exit. */
  readonly compiledFromSource: string[] = [];

  constructor(private readonly options: ScriptModulesOptions) {
    this.cached = readCodeCache(options.cache);
    this.files = new Set(options.files.map((file) => join(options.root, file)));
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

  load(file: string): object {
    if (this.failures.has(file)) throw this.failures.get(file);
    const known = this.modules.get(file);
    if (known) return known.exports;
    const name = relative(this.options.root, file);
    const cachedData = this.cached.get(name);
    const script = new Script(readFileSync(file, 'utf8'), { filename: file, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) this.compiledFromSource.push(name);
    this.scripts.set(name, script);
    const module = { exports: {} };
    this.modules.set(file, module);
    const url = pathToFileURL(file).href;
    if (scriptLoaded.hasSubscribers) scriptLoaded.publish({ url });
    let nodeRequire: NodeJS.Require | undefined;
    const requireFrom = (specifier: string): unknown => {
      const inBundle = this.inBundle(file, specifier);
      if (inBundle) return this.load(inBundle);
      nodeRequire ??= createRequire(url);
      return nodeRequire(specifier);
    };
    const importFrom = async (specifier: string): Promise<unknown> => {
      const inBundle = this.inBundle(file, specifier);
      if (inBundle) return this.load(inBundle);
      // Resolved as the module's own `import()` would: a path from the file, a name from node_modules above.
      return import(/^\.{0,2}\//.test(specifier) ? new URL(specifier, url).href : specifier);
    };
    const run = script.runInThisContext() as ModuleFunction;
    try {
      run.call(undefined, module.exports, requireFrom, module, url, importFrom);
    } catch (error) {
      this.failures.set(file, error);
      throw error;
    }
    return module.exports;
  }

  /** The caches of every file compiled in this run (with the functions compiled since), and the others kept. */
  save(): void {
    if (this.compiledFromSource.length === 0) return;
    this.compiledFromSource.length = 0;
    const entries = new Map(this.cached);
    for (const [name, script] of this.scripts) entries.set(name, script.createCachedData());
    writeCodeCache(this.options.cache, entries);
  }

  private inBundle(from: string, specifier: string): string | undefined {
    if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
    const path = resolve(dirname(from), specifier);
    return this.files.has(path) ? path : undefined;
  }
}

/**
 * A mode's entry, from the ES module scripts/build.mjs writes beside it: its bundle loaded as scripts with
 * the code cache of this cadre version, bundle and Node, written at exit when it was missing or unusable.
 */
export function loadModeScripts(
  stubUrl: string,
  mode: string,
  entry: string,
  bundle: string,
  version: string,
  files: readonly string[],
): object {
  const root = dirname(fileURLToPath(stubUrl));
  const cache = codeCacheLocation(process.env, mode, bundle, version);
  return new ScriptModules({ root, files, cache }).saveAtExit().load(join(root, entry));
}
