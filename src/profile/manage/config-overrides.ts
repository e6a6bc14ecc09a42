import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  modify,
  type Node,
  parseTree,
} from 'jsonc-parser';

/** Built-ins have no file: their model and effort overrides live in these config maps (SPEC 3.4, 7.6). */
export type OverrideMap = 'subagent_models' | 'subagent_efforts';

/** Indentation as the file already has it (two spaces for a new or flat file). */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * Sets `<map>.<name>` to `value` in a JSON-with-comments config text, or removes that key when `value`
 * is undefined (a map left empty becomes `{}`). Edited in place: comments, order and formatting of
 * everything else survive.
 */
export function setOverride(text: string, map: OverrideMap, name: string, value: string | undefined): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const formattingOptions = formattingOf(base);
  const root = parseTree(base);
  if (value === undefined && (!root || !findNodeAtLocation(root, [map, name]))) return text;
  const edited = applyEdits(base, modify(base, [map, name], value, { formattingOptions }));
  const left = findNodeAtLocation(parseTree(edited) as Node, [map]);
  if (value !== undefined || left?.type !== 'object' || (left.children?.length ?? 0) > 0) return edited;
  return applyEdits(edited, modify(edited, [map], {}, { formattingOptions }));
}
