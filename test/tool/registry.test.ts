import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILTIN_TOOL_NAMES } from '../../src/tool/names.js';
import { builtinTools, toolByName } from '../../src/tool/registry.js';
import { makeProject, type Project } from './fixture.js';

const EXPECTED: Record<string, string> = {
  read: 'read',
  grep: 'read',
  glob: 'read',
  find_files: 'read',
  list_dir: 'read',
  repo_overview: 'read',
  webfetch: 'read',
  write: 'write',
  edit: 'write',
  edit_lines: 'write',
  apply_patch: 'write',
  bash: 'write',
  bash_output: 'read',
  kill_shell: 'write',
  write_todo_list: 'read',
};

/** A minimal valid input per path tool, with the path under test in its path field. */
const PATH_TOOL_INPUTS: Record<string, (target: string) => unknown> = {
  read: (target) => ({ path: target }),
  grep: (target) => ({ pattern: 'x', path: target }),
  glob: (target) => ({ pattern: '*', path: target }),
  find_files: (target) => ({ pattern: '*', path: target }),
  list_dir: (target) => ({ path: target }),
  write: (target) => ({ path: target, content: '' }),
  edit: (target) => ({ path: target, old_string: 'a', new_string: 'b' }),
  edit_lines: (target) => ({ path: target, start_line: 1, end_line: 1, content: '' }),
  apply_patch: (target) => ({ patch: `--- a/${target}\n+++ b/${target}\n@@ -1 +1 @@\n-a\n+b\n` }),
};

describe('builtin tool registry', () => {
  let project: Project;
  beforeEach(() => {
    project = makeProject({ 'inside.txt': 'a\n' });
  });
  afterEach(() => project.cleanup());

  it('holds each implemented tool once, with the SPEC name and class', () => {
    const tools = builtinTools(project.root);
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.safety]))).toEqual(EXPECTED);
    expect(tools).toHaveLength(Object.keys(EXPECTED).length);
    for (const tool of tools) expect(BUILTIN_TOOL_NAMES).toContain(tool.name);
  });

  it('offers the model byte-stable, short descriptions and JSON schemas with described parameters', () => {
    const render = (root: string) =>
      JSON.stringify(
        builtinTools(root).map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: z.toJSONSchema(tool.schema),
        })),
      );
    // Nothing of the project (its path) leaks into what the model sees: another project renders the same bytes.
    const other = makeProject({ 'elsewhere.txt': 'b\n' });
    try {
      expect(render(other.root)).toBe(render(project.root));
    } finally {
      other.cleanup();
    }
    for (const tool of builtinTools(project.root)) {
      expect(tool.description.length).toBeLessThan(160);
      const schema = z.toJSONSchema(tool.schema) as { properties?: Record<string, { description?: string }> };
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        expect(
          property.description ?? (name === 'todos' ? 'array' : undefined),
          `${tool.name}.${name}`,
        ).toBeDefined();
      }
    }
  });

  it('finds a tool by name, bound to the given root', () => {
    expect(toolByName('find_files', project.root)?.name).toBe('find_files');
    expect(toolByName('read', project.root)?.subject({ path: 'inside.txt' })).toEqual({
      kind: 'path',
      paths: [path.join(project.root, 'inside.txt')],
    });
    expect(toolByName('task', project.root)).toBeUndefined();
  });

  describe.each(Object.entries(PATH_TOOL_INPUTS))('%s subject()', (name, inputFor) => {
    const subjectOf = (target: string) => {
      const tool = toolByName(name, project.root);
      if (!tool) throw new Error(`no tool ${name}`);
      return tool.subject(tool.schema.parse(inputFor(target)));
    };

    it('resolves a ../ path to the real path outside the project', () => {
      expect(subjectOf('../outside/f.txt')).toEqual({
        kind: 'path',
        paths: [path.join(project.outside, 'f.txt')],
      });
    });

    it('keeps an absolute outside path', () => {
      const target = path.join(project.outside, 'abs.txt');
      expect(subjectOf(target)).toEqual({ kind: 'path', paths: [target] });
    });

    it('sees a symlink in the project as the outside path it points to', () => {
      project.write('../outside/passwd', 'root:x:0:0\n');
      symlinkSync(path.join(project.outside, 'passwd'), path.join(project.root, 'innocent.txt'));
      expect(subjectOf('innocent.txt')).toEqual({
        kind: 'path',
        paths: [path.join(project.outside, 'passwd')],
      });
    });
  });
});
