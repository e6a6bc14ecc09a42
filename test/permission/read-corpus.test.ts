import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CadrePermissionGate, createPermissionGate } from '../../src/permission/gate.js';

/**
 * The real-world check of issue 15: 305 read-only commands from tldr pages and 57 that write, delete, run
 * or reach the network, decided under `--safety read-only --yes`. CI has the shared corpora beside the
 * repository as `../shared`.
 */
interface CorpusEntry {
  source: string;
  command: string;
  why?: string;
}
interface Corpus {
  project: { files: Record<string, string>; symlinks: Record<string, string> };
  benign: CorpusEntry[];
  control: CorpusEntry[];
}

const corpusFile = resolve(import.meta.dirname, '../../../shared/corpora/read-commands.json');
const corpus = JSON.parse(readFileSync(corpusFile, 'utf8')) as Corpus;
const base = mkdtempSync(join(tmpdir(), 'cadre-read-corpus-'));
const root = join(base, 'project');
let gate: CadrePermissionGate;

beforeAll(() => {
  for (const [file, content] of Object.entries(corpus.project.files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), content);
  }
  for (const [link, target] of Object.entries(corpus.project.symlinks)) {
    if (!existsSync(join(root, link))) symlinkSync(target, join(root, link));
  }
  gate = createPermissionGate({ root, home: join(base, 'home'), safety: 'read-only', yes: true });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function decide(command: string) {
  return gate.decide({ tool: 'bash', subject: { kind: 'bash', command }, safety: 'write', agent: 'main' });
}

describe('real read-only commands under --safety read-only --yes', () => {
  it('refuses at most 3% of the benign commands', async () => {
    const refused: string[] = [];
    for (const entry of corpus.benign) {
      const decision = await decide(entry.command);
      if (decision.action !== 'allow') refused.push(`${entry.command}: ${decision.reason}`);
    }
    expect(corpus.benign.length).toBe(305);
    expect(refused.length, refused.join('\n')).toBeLessThanOrEqual(Math.floor(corpus.benign.length * 0.03));
  });

  it('allows none of the control commands that write, delete, run or reach the network', async () => {
    const allowed: string[] = [];
    for (const entry of corpus.control) {
      if ((await decide(entry.command)).action === 'allow') allowed.push(entry.command);
    }
    expect(corpus.control.length).toBe(57);
    expect(allowed).toEqual([]);
  });
});
