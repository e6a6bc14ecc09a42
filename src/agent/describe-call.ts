/** One line of at most `max` characters: whitespace collapsed, an ellipsis where it was cut. */
export function oneLine(value: unknown, max = 100): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A tool call as people read it: `bash npm test`, `edit src/a.ts`, `read README.md`. */
export function describeCall(tool: string, input: unknown): string {
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    const main =
      record.command ?? record.path ?? record.pattern ?? record.url ?? record.prompt ?? record.name;
    if (typeof main === 'string') return `${tool} ${oneLine(main)}`;
  }
  return `${tool} ${oneLine(input)}`;
}
