import { z } from 'zod';
import { ConfigSchema } from './schema.js';

/** The JSON Schema shipped as `schema/config.schema.json`, derived from the schema that validates. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://cadre.invalid/schema/config.schema.json',
    title: 'cadre configuration ($CADRE_CONFIG_DIR/config.json, .cadre/config.json)',
  };
}
