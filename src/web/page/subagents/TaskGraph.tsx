import { DEFAULT_LAYOUT, type GraphItem, layoutGraph } from './graph-layout.js';

const { nodeWidth: W, nodeHeight: H } = DEFAULT_LAYOUT;

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A batch or fleet as its task graph: items as nodes coloured by state, dependencies as arrows, and a
 * dashed arrow from the task holding a claim to each task waiting on it.
 */
export function TaskGraph({ title, items }: { title: string; items: GraphItem[] }) {
  const layout = layoutGraph(items);
  const at = new Map(layout.nodes.map((node) => [node.item.id, node]));
  const pad = 6;
  const summary = items
    .map((item) => `${item.label}: ${item.state}${item.cause ? ` (waiting: ${item.cause})` : ''}`)
    .join('; ');
  return (
    <figure class="task-graph">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`${-pad} ${-pad} ${layout.width + 2 * pad} ${layout.height + 2 * pad}`}
        width="100%"
        style={{ maxWidth: `${layout.width + 2 * pad}px` }}
        role="img"
        aria-label={`${title}: ${summary}`}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="graph-arrow" />
          </marker>
        </defs>
        {layout.edges.map((edge) => {
          const from = at.get(edge.from);
          const to = at.get(edge.to);
          if (!from || !to) return null;
          const sameRow = from.y === to.y;
          const rightward = from.x < to.x;
          // Across a row: side to side; between rows: bottom to top.
          const x1 = sameRow ? from.x + (rightward ? W : 0) : from.x + W / 2;
          const y1 = sameRow ? from.y + H / 2 : from.y + H;
          const x2 = sameRow ? to.x + (rightward ? 0 : W) : to.x + W / 2;
          const y2 = sameRow ? to.y + H / 2 : to.y;
          const bend = Math.max(12, Math.abs(y2 - y1) / 2);
          const d = sameRow
            ? `M${x1},${y1} L${x2},${y2}`
            : `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
          return (
            <path
              key={`${edge.kind}:${edge.from}:${edge.to}`}
              class={`graph-edge graph-edge-${edge.kind}`}
              d={d}
              marker-end="url(#arrow)"
            />
          );
        })}
        {layout.nodes.map(({ item, x, y }) => (
          <g key={item.id} transform={`translate(${x},${y})`} class={`graph-node state-${item.state}`}>
            <title>
              {item.label} ({item.id}): {item.state}
              {item.cause ? ` — waiting: ${item.cause}` : ''}
            </title>
            <rect width={W} height={H} rx="6" />
            <text x="8" y="18" class="graph-label">
              {shorten(item.label, 20)}
            </text>
            <text x="8" y="36" class="graph-state">
              {shorten(item.cause ? `waits: ${item.cause}` : item.state, 24)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
