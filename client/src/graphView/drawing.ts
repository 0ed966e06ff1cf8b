/**
 * What the graph view shows for one answer of `10xgraph/graphView`: the state reported to tests,
 * the header and the SVG. Pure (no `vscode` import), so the drawing of every state is testable.
 */
import type { GraphViewResult, StatusParams } from '../../../common/protocol';
import { ageOf } from '../statusText';
import { escapeXml, layoutGraph, renderSvg, type FileTool } from './layout';

/** What the view shows, also reported to tests through the extension's API. */
export interface GraphViewState {
  state: 'loading' | 'stopped' | StatusParams['state'];
  url: string;
  nodes: string[];
  unattached: FileTool[];
  message?: string;
}

/** One drawing: the state, and the two HTML fragments the webview puts in place (every text escaped). */
export interface Drawing {
  view: GraphViewState;
  header: string;
  svg: string;
}

const LEGEND =
  '<p class="legend"><span class="tool local">⚙ server tool</span> <span class="tool remote">⇄ remote tool</span> <span class="tool missing">✗ in the file, not attached</span></p>';

/** The drawing while the first answer is awaited. */
export function loadingDrawing(url = ''): Drawing {
  return { view: { state: 'loading', url, nodes: [], unattached: [] }, header: '<p class="state loading">Asking the language server for the graph…</p>' + LEGEND, svg: '' };
}

/**
 * Draws an answer of the language server; `undefined` when it does not run, `null` when it
 * failed to answer (it logged why). `fileName` is the workspace-relative name of the document
 * the answer is for, if any.
 */
export function drawAnswer(answer: GraphViewResult | null | undefined, fileName: string | undefined, now: number): Drawing {
  if (answer === undefined || answer === null) {
    const message =
      answer === undefined
        ? 'The language server is not running, so there is nothing to draw. Run "10xgraph: Restart Language Server"; the 10xgraph output says why it stopped.'
        : 'The language server could not answer; the 10xgraph output says why. Click Refresh to ask again.';
    return { view: { state: 'stopped', url: '', nodes: [], unattached: [], message }, header: `<p class="state stopped">${escapeXml(message)}</p>${LEGEND}`, svg: '' };
  }
  const { status, graph, tools } = answer;
  const view: GraphViewState = { state: status.state, url: status.url, nodes: graph?.nodes.map((node) => node.name) ?? [], unattached: [] };
  // Without a graph the view says what to do; the server's status sentence is about node names.
  if (status.state === 'untrusted') view.message = 'This workspace is not trusted, so no server is contacted and no graph is fetched. Trust the workspace to see the live graph.';
  else if (status.state === 'disabled') view.message = 'Live graph checks are off (10xgraph.server.enabled is false); turn the setting on to see the graph.';
  else if (status.error !== undefined) view.message = status.error;
  let svg = '';
  if (graph !== undefined) {
    const layout = layoutGraph(graph, tools ?? []);
    view.unattached = layout.unattached;
    svg = renderSvg(layout);
  }
  const parts: string[] = [];
  const where = `<code>${escapeXml(view.url)}</code>`;
  if (view.state === 'connected') {
    const age = ageOf(graph?.fetchedAt, now);
    const edges = graph?.edges?.length ?? 0;
    parts.push(
      `<p class="state connected">Live graph of ${where}: ${view.nodes.length} nodes, ${edges} edges${age !== undefined ? `, fetched ${escapeXml(age)}` : ''}${graph?.version !== undefined ? ` (10xgraph ${escapeXml(graph.version)})` : ''}.</p>`,
    );
  } else if (view.state === 'offline') {
    parts.push(`<p class="state offline">${where}: ${escapeXml(view.message ?? '')}</p>`);
  } else {
    parts.push(`<p class="state ${view.state}">${escapeXml(view.message ?? '')}</p>`);
  }
  // The file's line only with a graph: without one, nothing says whether its tools are attached.
  if (fileName !== undefined && graph !== undefined && tools !== undefined) {
    const name = `<code>${escapeXml(fileName)}</code>`;
    parts.push(
      view.unattached.length === 0
        ? `<p class="file">Tools of ${name}: all attached.</p>`
        : `<p class="file missing">Tools of ${name} the server has not attached: ${view.unattached.map((tool) => `<code>${escapeXml(tool.node)} / ${escapeXml(tool.name)}</code>`).join(', ')}. Restart the server with this config.</p>`,
    );
  }
  parts.push(LEGEND);
  return { view, header: parts.join(''), svg };
}
