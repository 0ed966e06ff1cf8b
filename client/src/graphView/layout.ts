/**
 * A small layered layout for the live graph, and its SVG. Pure (no `vscode` import): the same
 * input always gives the same picture.
 *
 * Nodes are put in layers by their longest path from the entry (edges that close a cycle are
 * set aside first and drawn as arcs on the side), ordered within a layer by the mean position
 * of their neighbours, and stacked top to bottom.
 */
import type { DeclaredTool, Graph, GraphNode, NodeKind } from '10xgraph/rules';

/** A remote tool that the open `10xgraph.json` declares, with the rule set's verdict on whether it is attached. */
export type FileTool = DeclaredTool;

/** One line inside a node's box. */
export interface ToolLine {
  name: string;
  /** `local`: a server tool; `remote`: attached remote tool; `missing`: in the file, not attached. */
  status: 'local' | 'remote' | 'missing';
  /** Declared in the open file (remote tools only). */
  inFile: boolean;
}

/** A placed node. `kind` is `orphan` for the box of file tools whose node the graph lacks. */
export interface PlacedNode {
  name: string;
  kind: NodeKind | 'orphan';
  x: number;
  y: number;
  width: number;
  height: number;
  tools: ToolLine[];
}

/** A placed edge, as an SVG path. */
export interface PlacedEdge {
  source: string;
  target: string;
  path: string;
  /** Closes a cycle (drawn on the side). */
  back: boolean;
}

/** The whole picture. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  /** File tools the server has not attached, however their node fares. */
  unattached: FileTool[];
}

const CHAR_WIDTH = 7.4;
const LINE_HEIGHT = 18;
const HEADER_HEIGHT = 42;
const PADDING = 12;
const LAYER_GAP = 56;
const NODE_GAP = 36;
const MARGIN = 24;
const BACK_EDGE_SPAN = 28;

/** Places the graph's nodes and edges, with each ToolNode's tools and the file's unattached tools. */
export function layoutGraph(graph: Graph, fileTools: FileTool[] = []): GraphLayout {
  const nodes = new Map<string, GraphNode>();
  for (const node of graph.nodes) nodes.set(node.name, node);
  const edges = (graph.edges ?? []).filter((edge) => edge.source !== '' && edge.target !== '');
  // An edge to a node the list omits still deserves a box.
  for (const edge of edges) {
    for (const end of [edge.source, edge.target]) if (!nodes.has(end)) nodes.set(end, { name: end, kind: 'unknown' });
  }

  const unattached = fileTools.filter((tool) => tool.attached === false);
  const boxes = new Map<string, PlacedNode>();
  for (const node of nodes.values()) boxes.set(node.name, boxOf(node, fileTools));

  const names = [...nodes.keys()];
  const outgoing = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const edge of edges) outgoing.get(edge.source)?.push(edge.target);
  const back = findBackEdges(names, edges, outgoing);
  const layerOf = assignLayers(names, edges, back);
  const layers = orderLayers(names, edges, back, layerOf);

  // Tools of the file whose node is not in the graph get a box of their own, below the rest.
  const orphans = fileTools.filter((tool) => !nodes.has(tool.node));
  if (orphans.length > 0) {
    const box: PlacedNode = {
      name: 'not in the graph',
      kind: 'orphan',
      x: 0,
      y: 0,
      width: 0,
      height: 0,
      tools: orphans.map((tool) => ({ name: `${tool.node} / ${tool.name}`, status: 'missing', inFile: true })),
    };
    sizeBox(box, 'node named in the file');
    boxes.set(box.name, box);
    layers.push([box.name]);
  }

  let y = MARGIN;
  let width = 0;
  const rows = layers.map((layer) => {
    const row = layer.map((name) => boxes.get(name)!);
    const rowWidth = row.reduce((sum, box) => sum + box.width, 0) + NODE_GAP * Math.max(0, row.length - 1);
    width = Math.max(width, rowWidth);
    return { row, rowWidth };
  });
  for (const { row, rowWidth } of rows) {
    let x = MARGIN + (width - rowWidth) / 2;
    const rowHeight = Math.max(...row.map((box) => box.height));
    for (const box of row) {
      box.x = Math.round(x);
      box.y = Math.round(y);
      x += box.width + NODE_GAP;
    }
    y += rowHeight + LAYER_GAP;
  }
  const hasBackEdges = back.size > 0;
  const totalWidth = Math.ceil(width + 2 * MARGIN + (hasBackEdges ? BACK_EDGE_SPAN * (back.size + 1) : 0));
  const totalHeight = Math.ceil(Math.max(y - LAYER_GAP + MARGIN, 2 * MARGIN));

  let backIndex = 0;
  const placedEdges = edges.map((edge, index): PlacedEdge => {
    const from = boxes.get(edge.source)!;
    const to = boxes.get(edge.target)!;
    const isBack = back.has(index);
    return { source: edge.source, target: edge.target, back: isBack, path: isBack ? backPath(from, to, ++backIndex) : forwardPath(from, to) };
  });
  return { width: totalWidth, height: totalHeight, nodes: [...boxes.values()], edges: placedEdges, unattached };
}

/** The SVG of a layout; all text is escaped, colours come from CSS classes. */
export function renderSvg(layout: GraphLayout): string {
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="graph with ${layout.nodes.length} nodes">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrow"/></marker></defs>',
  );
  for (const edge of layout.edges) {
    parts.push(`<path class="edge${edge.back ? ' back' : ''}" d="${edge.path}" marker-end="url(#arrow)"><title>${escapeXml(`${edge.source} → ${edge.target}`)}</title></path>`);
  }
  for (const node of layout.nodes) {
    parts.push(`<g class="node kind-${node.kind}" data-node="${escapeXml(node.name)}">`);
    parts.push(`<rect x="${node.x}" y="${node.y}" width="${node.width}" height="${node.height}" rx="6"/>`);
    parts.push(`<text class="name" x="${node.x + PADDING}" y="${node.y + 18}">${escapeXml(node.name)}</text>`);
    parts.push(`<text class="kind" x="${node.x + PADDING}" y="${node.y + 34}">${escapeXml(kindLabel(node))}</text>`);
    node.tools.forEach((tool, i) => {
      const label = `${toolMark(tool)} ${tool.name}${tool.status === 'missing' && node.kind !== 'orphan' ? ' (not attached)' : ''}`;
      parts.push(
        `<text class="tool ${tool.status}${tool.inFile ? ' in-file' : ''}" x="${node.x + PADDING}" y="${node.y + HEADER_HEIGHT + 13 + i * LINE_HEIGHT}">${escapeXml(label)}</text>`,
      );
    });
    parts.push('</g>');
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Escapes text for SVG/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function boxOf(node: GraphNode, fileTools: FileTool[]): PlacedNode {
  const declared = fileTools.filter((tool) => tool.node === node.name);
  const inFile = new Set(declared.map((tool) => tool.name));
  const tools: ToolLine[] = (node.tools ?? []).map((tool) => ({
    name: tool.name,
    status: tool.source,
    inFile: tool.source === 'remote' && inFile.has(tool.name),
  }));
  for (const tool of declared) {
    if (tool.attached === false) tools.push({ name: tool.name, status: 'missing', inFile: true });
  }
  const box: PlacedNode = { name: node.name, kind: node.kind, x: 0, y: 0, width: 0, height: 0, tools };
  sizeBox(box, kindLabel(box));
  return box;
}

function sizeBox(box: PlacedNode, subtitle: string): void {
  const longest = Math.max(
    box.name.length * 1.1,
    subtitle.length,
    ...box.tools.map((tool) => tool.name.length + 2 + (tool.status === 'missing' && box.kind !== 'orphan' ? 15 : 0)),
  );
  box.width = Math.ceil(Math.max(120, longest * CHAR_WIDTH + 2 * PADDING));
  box.height = HEADER_HEIGHT + (box.tools.length > 0 ? box.tools.length * LINE_HEIGHT + 6 : 0);
}

function kindLabel(node: PlacedNode): string {
  switch (node.kind) {
    case 'tool_node':
      return 'ToolNode';
    case 'model_node':
      return 'model node';
    case 'function_node':
      return 'function node';
    case 'orphan':
      return 'node named in the file';
    default:
      return 'node';
  }
}

function toolMark(tool: ToolLine): string {
  if (tool.status === 'local') return '⚙';
  if (tool.status === 'remote') return '⇄';
  return '✗';
}

/** Edge indexes that close a cycle, found by a depth-first search from the entry nodes. */
function findBackEdges(names: string[], edges: { source: string; target: string }[], outgoing: Map<string, string[]>): Set<number> {
  const state = new Map<string, 'open' | 'done'>();
  const backPairs = new Set<string>();
  const hasIncoming = new Set(edges.map((edge) => edge.target));
  const roots = [...names.filter((name) => name === '__start__'), ...names.filter((name) => name !== '__start__' && !hasIncoming.has(name)), ...names];
  const visit = (name: string) => {
    state.set(name, 'open');
    for (const next of outgoing.get(name) ?? []) {
      const seen = state.get(next);
      if (seen === 'open') backPairs.add(`${name}\u0000${next}`);
      else if (seen === undefined) visit(next);
    }
    state.set(name, 'done');
  };
  for (const root of roots) if (!state.has(root)) visit(root);
  const back = new Set<number>();
  edges.forEach((edge, index) => {
    if (backPairs.has(`${edge.source}\u0000${edge.target}`)) back.add(index);
  });
  return back;
}

/** Longest-path layering over the edges that are not back edges. */
function assignLayers(names: string[], edges: { source: string; target: string }[], back: Set<number>): Map<string, number> {
  const layer = new Map<string, number>(names.map((name) => [name, 0]));
  // Relaxation terminates: without back edges the graph is acyclic, so |V| rounds suffice.
  for (let round = 0; round < names.length; round++) {
    let changed = false;
    edges.forEach((edge, index) => {
      if (back.has(index) || edge.source === edge.target) return;
      const want = layer.get(edge.source)! + 1;
      if (want > layer.get(edge.target)!) {
        layer.set(edge.target, want);
        changed = true;
      }
    });
    if (!changed) break;
  }
  return layer;
}

/** Layers in order, each ordered by the barycentre of its neighbours (two sweeps). */
function orderLayers(names: string[], edges: { source: string; target: string }[], back: Set<number>, layerOf: Map<string, number>): string[][] {
  const count = Math.max(0, ...layerOf.values()) + 1;
  const layers: string[][] = Array.from({ length: count }, () => []);
  for (const name of names) layers[layerOf.get(name)!].push(name);
  const forward = edges.filter((_, index) => !back.has(index));
  const position = new Map<string, number>();
  const remember = () => layers.forEach((layer) => layer.forEach((name, i) => position.set(name, i)));
  remember();
  const sweep = (neighbours: (name: string) => string[], order: number[]) => {
    for (const l of order) {
      const layer = layers[l];
      const key = new Map(
        layer.map((name, i) => {
          const around = neighbours(name)
            .map((n) => position.get(n)!)
            .filter((p) => p !== undefined);
          return [name, around.length > 0 ? around.reduce((a, b) => a + b, 0) / around.length : i] as const;
        }),
      );
      layer.sort((a, b) => key.get(a)! - key.get(b)! || names.indexOf(a) - names.indexOf(b));
      remember();
    }
  };
  const down = Array.from({ length: count }, (_, i) => i).slice(1);
  const up = Array.from({ length: count }, (_, i) => count - 1 - i).slice(1);
  sweep((name) => forward.filter((edge) => edge.target === name).map((edge) => edge.source), down);
  sweep((name) => forward.filter((edge) => edge.source === name).map((edge) => edge.target), up);
  return layers.filter((layer) => layer.length > 0);
}

function forwardPath(from: PlacedNode, to: PlacedNode): string {
  if (from === to) return backPath(from, to, 1);
  const x1 = from.x + from.width / 2;
  const y1 = from.y + from.height;
  const x2 = to.x + to.width / 2;
  const y2 = to.y;
  const bend = Math.max(20, (y2 - y1) / 2);
  return `M ${x1} ${y1} C ${x1} ${y1 + bend}, ${x2} ${y2 - bend}, ${x2} ${y2}`;
}

function backPath(from: PlacedNode, to: PlacedNode, index: number): string {
  const x1 = from.x + from.width;
  const y1 = from.y + from.height / 2;
  const x2 = to.x + to.width;
  const y2 = to.y + to.height / 2;
  const out = Math.max(x1, x2) + BACK_EDGE_SPAN * index;
  return `M ${x1} ${y1} C ${out} ${y1}, ${out} ${y2}, ${x2} ${y2}`;
}
