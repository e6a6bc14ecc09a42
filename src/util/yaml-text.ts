import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let yaml: typeof Yaml | undefined;

/**
 * The yaml package, loaded by the first text that needs it rather than with cadre: most runs have no YAML
 * to read (the profiles' plain frontmatter has a fast path), and evaluating the library cost about 4% of a
 * cold `cadre -p` (issue 17). Required from node_modules, so the bundle does not carry it on start-up.
 */
function yamlLibrary(): typeof Yaml {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yaml;
}

export type YamlParse = { ok: true; value: unknown; warnings: YamlProblem[] } | ({ ok: false } & YamlProblem);

export interface YamlProblem {
  message: string;
  line?: number;
}

/**
 * Parses YAML without the library's own console output: errors and warnings come back with their line
 * (1-based, relative to `text`) so the caller can name its file. Aliases are capped so a billion-laughs
 * document is an error, not gigabytes of memory.
 */
export function parseYamlText(text: string): YamlParse {
  const doc = yamlLibrary().parseDocument(text, { prettyErrors: true, logLevel: 'silent' });
  const lineOf = (e: { linePos?: [{ line: number }, ...unknown[]] }) => e.linePos?.[0]?.line;
  const firstLine = (message: string) => message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    return { ok: false, message: firstLine(error.message), line: lineOf(error) };
  }
  const warnings = doc.warnings.map((w) => ({ message: firstLine(w.message), line: lineOf(w) }));
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }), warnings };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
