/** One task of a graph as the drawing needs it: nothing about where it came from (batch, fleet…). */
export interface GraphItem {
  id: string;
  label: string;
  /** queued, running, completed, failed, cancelled, timed_out, skipped… drawn as a colour. */
  state: string;
  dependsOn: readonly string[];
  /** Why a waiting item waits (`slots`, `writers`, `claim: src/a.ts held by t2`). */
  cause?: string;
}

export interface PlacedNode {
  item: GraphItem;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** `dependency`: `to` runs after `from`; `claim`: `to` waits for a path `from` holds. */
  kind: 'dependency' | 'claim';
}

export interface GraphLayout {
  nodes: PlacedNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export interface LayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  gapX: number;
  gapY: number;
  /** Nodes per row before a layer wraps onto the next row. */
  perRow: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = {
  nodeWidth: 150,
  nodeHeight: 46,
  gapX: 16,
  gapY: 28,
  perRow: 4,
};

const CLAIM_HOLDER = /held by (\S+)\s*$/;

/** The task a claim wait names as the holder, if the cause is a claim. */
export function claimHolder(cause: string | undefined): string | undefined {
  return cause?.startsWith('claim') ? CLAIM_HOLDER.exec(cause)?.[1] : undefined;
}

/**
 * Places a task graph top-down: an item's layer is one below its deepest dependency (dependencies outside
 * the graph are ignored, a cycle is cut where it is found), items in a layer ordered by where their
 * dependencies sit, and a layer wider than `perRow` wrapped onto further rows.
 */
export function layoutGraph(
  items: readonly GraphItem[],
  options: LayoutOptions = DEFAULT_LAYOUT,
): GraphLayout {
  const byId = new Map(items.map((item) => [item.id, item]));
  const layerOf = new Map<string, number>();
  const visiting = new Set<string>();
  const layer = (id: string): number => {
    const known = layerOf.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.dependsOn ?? []).filter((dep) => byId.has(dep));
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(layer));
    visiting.delete(id);
    layerOf.set(id, value);
    return value;
  };
  const layers: GraphItem[][] = [];
  for (const item of items) {
    const index = layer(item.id);
    layers[index] = [...(layers[index] ?? []), item];
  }

  const column = new Map<string, number>();
  const nodes: PlacedNode[] = [];
  let row = 0;
  for (const members of layers) {
    if (!members) continue;
    const weight = (item: GraphItem) => {
      const placed = item.dependsOn.map((dep) => column.get(dep)).filter((c): c is number => c !== undefined);
      return placed.length === 0
        ? Number.POSITIVE_INFINITY
        : placed.reduce((a, b) => a + b, 0) / placed.length;
    };
    const ordered = members
      .map((item, index) => ({ item, index, weight: weight(item) }))
      .sort((a, b) => a.weight - b.weight || a.index - b.index)
      .map((entry) => entry.item);
    ordered.forEach((item, index) => {
      const col = index % options.perRow;
      const wrap = Math.floor(index / options.perRow);
      column.set(item.id, col);
      nodes.push({
        item,
        x: col * (options.nodeWidth + options.gapX),
        y: (row + wrap) * (options.nodeHeight + options.gapY),
      });
    });
    row += Math.ceil(ordered.length / options.perRow);
  }

  const edges: GraphEdge[] = [];
  for (const item of items) {
    for (const dep of item.dependsOn)
      if (byId.has(dep)) edges.push({ from: dep, to: item.id, kind: 'dependency' });
    const holder = claimHolder(item.cause);
    if (holder !== undefined && byId.has(holder) && holder !== item.id)
      edges.push({ from: holder, to: item.id, kind: 'claim' });
  }
  const columns = Math.min(options.perRow, Math.max(1, ...layers.map((m) => m?.length ?? 0)));
  return {
    nodes,
    edges,
    width: columns * options.nodeWidth + (columns - 1) * options.gapX,
    height: Math.max(0, row * (options.nodeHeight + options.gapY) - options.gapY),
  };
}
