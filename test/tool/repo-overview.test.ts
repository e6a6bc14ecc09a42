import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepoOverviewTool } from '../../src/tool/repo-overview.js';
import { makeProject, type Project, run } from './fixture.js';

describe('repo_overview', () => {
  let project: Project;
  beforeEach(() => {
    project = makeProject({
      '.gitignore': 'node_modules/\n',
      'README.md': '# Demo\n\nA demo project.\n',
      'package.json': '{"name":"demo"}',
      'src/a.ts': '',
      'src/b.ts': '',
      'src/c.json': '',
      'packages/lib/package.json': '{}',
      'packages/lib/index.ts': '',
      'node_modules/dep/package.json': '{}',
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
  });
  afterEach(() => project.cleanup());

  it('summarises structure, extensions, manifests and the README', async () => {
    const result = await run(createRepoOverviewTool(project.root), {}, project.ctx);
    expect(result.isError).toBeUndefined();
    expect(result.output).toBe(
      [
        `Project root: ${project.root}`,
        '',
        "Files (excluding .gitignore'd): 8",
        '',
        'Top level:',
        '  .gitignore',
        '  README.md',
        '  node_modules/ (ignored or empty)',
        '  package.json',
        '  packages/ (2 files)',
        '  src/ (3 files)',
        '',
        'Files by extension:',
        '  .json: 3',
        '  .ts: 3',
        '  (none): 1',
        '  .md: 1',
        '',
        'Manifests:',
        '  package.json',
        '  packages/lib/package.json',
        '',
        'README.md (first lines):',
        '# Demo',
        '',
        'A demo project.',
        '',
      ].join('\n'),
    );
  });

  it('takes no parameters and has the root as subject', () => {
    const tool = createRepoOverviewTool(project.root);
    expect(tool.schema.safeParse({}).success).toBe(true);
    expect(tool.subject({})).toEqual({ kind: 'path', paths: [project.root] });
  });
});
