import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGlobTool } from '../../src/tool/glob.js';
import { createGrepTool } from '../../src/tool/grep.js';
import { createListDirTool } from '../../src/tool/list-dir.js';
import { makeProject, type Project, run } from './fixture.js';

/** Issue 15 point 4: grep, glob and list_dir do not follow symlinks out of the project. */
let project: Project;
afterEach(() => project?.cleanup());

function withLinksOut(): Project {
  const p = makeProject({ 'src/inside.txt': 'needle inside\n' });
  writeFileSync(join(p.outside, 'secret.txt'), 'needle secret\n');
  symlinkSync(join(p.outside, 'secret.txt'), join(p.root, 'src', 'link-file.txt'));
  symlinkSync(p.outside, join(p.root, 'src', 'link-dir'));
  symlinkSync(join(p.root, 'src', 'inside.txt'), join(p.root, 'src', 'link-inside.txt'));
  return p;
}

describe('links out of the project', () => {
  it('grep searches neither a linked file nor a linked directory outside', async () => {
    project = withLinksOut();
    const result = await run(createGrepTool(project.root), { pattern: 'needle' }, project.ctx);
    expect(result.output).toContain('inside.txt');
    expect(result.output).toContain('link-inside.txt');
    expect(result.output).not.toContain('needle secret');
  });

  it('glob lists no linked file leading outside', async () => {
    project = withLinksOut();
    const result = await run(createGlobTool(project.root), { pattern: '**/*.txt' }, project.ctx);
    expect(result.output).toContain('inside.txt');
    expect(result.output).not.toContain('link-file.txt');
    expect(result.output).not.toContain('secret');
  });

  it('list_dir shows a link without following it', async () => {
    project = withLinksOut();
    const result = await run(createListDirTool(project.root), { path: 'src' }, project.ctx);
    expect(result.output).toContain(`link-dir -> ${project.outside}`);
    expect(result.output).not.toContain('link-dir/');
  });
});
