// Writes schema/config.schema.json and schema/profile.schema.json from the zod schemas that validate config
// files (SPEC 2.1) and profile frontmatter (SPEC 3.2). `npm run schema` after changing src/config/schema.ts
// or src/profile/schema.ts; a test fails while a shipped file and its schema disagree.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../src/config/json-schema.js';
import { profileJsonSchema } from '../src/profile/schema.js';

for (const [file, schema] of [
  ['config.schema.json', configJsonSchema()],
  ['profile.schema.json', profileJsonSchema()],
] as const) {
  writeFileSync(new URL(`../schema/${file}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
}
