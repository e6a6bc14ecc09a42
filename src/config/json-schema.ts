import { z } from 'zod';
import { ProfileConfigSchema } from '../profile/schema.js';
import { configSchema } from './schema.js';

/**
 * The JSON Schema shipped as `schema/config.schema.json`, derived from the schemas that validate: the
 * config's own, with `agents` entries described by the one profile schema (src/profile/schema.ts). At
 * run time a bad profile entry is a load warning, not a config error (SPEC 3.3); an editor flags it.
 */
export function configJsonSchema(): Record<string, unknown> {
  const forEditors = configSchema().extend({ agents: z.record(z.string(), ProfileConfigSchema).optional() });
  return {
    ...z.toJSONSchema(forEditors, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://cadre.invalid/schema/config.schema.json',
    title: 'cadre configuration ($CADRE_CONFIG_DIR/config.json, .cadre/config.json)',
  };
}
