import { z } from 'zod';
import type { AnyTool } from '../tool/tool.js';
import type { ToolSpec } from './model-stream.js';

const cache = new WeakMap<AnyTool, ToolSpec>();

/** A tool's input as the JSON schema the model is sent (what the build makes for the built-in tools). */
export function inputJsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * The tool list as the model sees it. Computed once per tool object, so the list sent on every turn of
 * the same profile is byte-identical (prompt-cache stability, SPEC 18).
 */
export function toolSpecsFor(tools: readonly AnyTool[]): ToolSpec[] {
  return tools.map((tool) => {
    let spec = cache.get(tool);
    if (!spec) {
      const inputSchema = tool.inputJsonSchema ?? inputJsonSchemaOf(tool.schema);
      delete inputSchema.$schema;
      spec = { name: tool.name, description: tool.description, inputSchema };
      cache.set(tool, spec);
    }
    return spec;
  });
}
