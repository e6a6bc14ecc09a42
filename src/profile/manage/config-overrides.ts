import { applyEdits, findNodeAtLocation, modify, type Node, parseTree } from 'jsonc-parser';
import { formattingOf } from '../../config/jsonc-format.js';

/** Built-ins have no file: their model and effort overrides live in these config maps (SPEC 3.4, 7.6). */
export type OverrideMap = 'subagent_models' | 'subagent_efforts';

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
