/**
 * The input JSON schemas the model is sent for the built-in tools, by tool name. The build replaces this
 * empty table with the one `scripts/tool-input-schemas.ts` derives from the tools' zod schemas
 * (scripts/build.mjs), so a start sends them without building a zod schema (issue 17); run from source,
 * the table is empty and each schema is converted on first use, as a tool without an entry always is.
 */
export const BUILT_INPUT_SCHEMAS: Readonly<Record<string, Record<string, unknown> | undefined>> = {};
