// Writes schema/config.schema.json from the one zod schema that validates config files (SPEC 2.1).
// `npm run schema` after changing src/config/schema.ts; a test fails while the two disagree.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../src/config/json-schema.js';

writeFileSync(
  new URL('../schema/config.schema.json', import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
