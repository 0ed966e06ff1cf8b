/**
 * `10xgraph: Open Graph`: a webview that draws the live graph of the configured server. The
 * extension host fetches the graph (the webview has no network access at all: its content
 * security policy allows only its own nonce-tagged script and style) and sends the drawing.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { fetchLiveGraph } from '10xgraph/live';
import { declaredTools, type Graph } from '10xgraph/rules';
import type { StatusParams } from '../../../common/protocol';
import { readSettings } from '../settings';
import type { TokenStore } from '../tokens';
import { ageOf } from '../statusText';
import { escapeXml, layoutGraph, renderSvg, type FileTool } from './layout';

/** What the panel needs from the rest of the extension. */
export interface GraphPanelDeps {
  tokens: TokenStore;
  /** The 10xgraph document the panel compares against (the active one, else the last one seen). */
  configDocument: () => vscode.TextDocument | undefined;
  output: vscode.OutputChannel;
}

/** What the view shows, also reported to tests through the extension's API. */
export interface GraphViewState {
  state: 'loading' | 'connected' | 'offline' | 'disabled' | 'untrusted';
  url: string;
  nodes: string[];
  unattached: FileTool[];
  message?: string;
}

const MAX_BYTES = 5 * 1024 * 1024;

/** The one graph panel of the window. */
export class GraphPanel implements vscode.Disposable {
  private static current: GraphPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private graph: Graph | undefined;
  private viewState: GraphViewState;
  private loading: Promise<void> | undefined;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;
  private lastStatusKey = '';
  private fileTools: FileTool[] = [];
  private fileToolsUri: string | undefined;

  /** Opens the panel, or reveals it and refetches when it is open. */
  static show(deps: GraphPanelDeps): GraphPanel {
    if (GraphPanel.current !== undefined) {
      GraphPanel.current.panel.reveal(undefined, false);
      void GraphPanel.current.reload();
      return GraphPanel.current;
    }
    const panel = vscode.window.createWebviewPanel('10xgraph.graph', '10xgraph Graph', vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [],
      retainContextWhenHidden: false,
    });
    GraphPanel.current = new GraphPanel(panel, deps);
    return GraphPanel.current;
  }

  /** The open panel, if any. */
  static get open(): GraphPanel | undefined {
    return GraphPanel.current;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly deps: GraphPanelDeps,
  ) {
    this.viewState = { state: 'loading', url: readSettings().server.url, nodes: [], unattached: [] };
    panel.webview.html = pageHtml(panel.webview.cspSource, nonce());
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (isRecord(message) && message.type === 'refresh') void this.reload();
        if (isRecord(message) && message.type === 'ready') this.post();
      }),
      // A visible webview that was hidden lost its DOM: draw again when it comes back.
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.post();
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === this.deps.configDocument()) this.scheduleRedraw();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.scheduleRedraw()),
    );
    void this.reload();
  }

  /** What the view shows now. */
  get state(): GraphViewState {
    return this.viewState;
  }

  /** Resolves once a load in progress (if any) has finished. */
  async settled(): Promise<void> {
    while (this.loading !== undefined) await this.loading;
  }

  /** Refetches when the server reports that the graph changed (a new fetch, or a new state). */
  onStatus(status: StatusParams): void {
    const key = `${status.url} ${status.state} ${status.nodeCount ?? ''} ${status.fetchedAt ?? ''}`;
    if (key === this.lastStatusKey) return;
    this.lastStatusKey = key;
    void this.reload();
  }

  /** Fetches the graph again (when trusted and enabled) and redraws. */
  reload(): Promise<void> {
    const run = async () => {
      const settings = readSettings();
      const url = settings.server.url;
      if (!vscode.workspace.isTrusted) {
        this.graph = undefined;
        this.viewState = { state: 'untrusted', url, nodes: [], unattached: [], message: 'This workspace is not trusted, so no server is contacted and no graph is fetched. Trust the workspace to see the live graph.' };
      } else if (!settings.server.enabled) {
        this.graph = undefined;
        this.viewState = { state: 'disabled', url, nodes: [], unattached: [], message: 'Live graph checks are off (10xgraph.server.enabled).' };
      } else {
        this.viewState = { ...this.viewState, state: 'loading', url };
        this.post();
        // The token the language server uses for this URL: the stored one, else the setting, else the environment.
        const token = (await this.deps.tokens.tokenFor(url)) ?? settings.server.token ?? (process.env.TENXGRAPH_TOKEN || undefined);
        const result = await fetchLiveGraph(url, { timeoutMs: settings.server.timeoutMs, maxBytes: MAX_BYTES, ...(token !== undefined ? { token } : {}) });
        if (result.ok) {
          this.graph = result.graph;
          this.viewState = { state: 'connected', url, nodes: result.graph.nodes.map((node) => node.name), unattached: [] };
        } else {
          this.deps.output.appendLine(`[graph view] ${url}: ${result.error}`);
          this.viewState = {
            state: 'offline',
            url,
            nodes: this.graph?.nodes.map((node) => node.name) ?? [],
            unattached: [],
            message: `${result.error}${this.graph !== undefined ? ' Showing the last graph fetched.' : ''}`,
          };
        }
      }
      this.post();
    };
    // Loads run one after another, so an older answer never overwrites a newer one.
    const previous = this.loading ?? Promise.resolve();
    const next = previous.then(run, run).finally(() => {
      if (this.loading === next) this.loading = undefined;
    });
    this.loading = next;
    return next;
  }

  dispose(): void {
    if (GraphPanel.current === this) GraphPanel.current = undefined;
    if (this.redrawTimer !== undefined) clearTimeout(this.redrawTimer);
    for (const disposable of this.disposables) disposable.dispose();
    this.panel.dispose();
  }

  private scheduleRedraw(): void {
    if (this.redrawTimer !== undefined) clearTimeout(this.redrawTimer);
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = undefined;
      this.post();
    }, 250);
  }

  /** Sends the current drawing to the webview. */
  private post(): void {
    const document = this.deps.configDocument();
    if (document?.uri.toString() !== this.fileToolsUri) {
      this.fileTools = [];
      this.fileToolsUri = document?.uri.toString();
    }
    const graph = this.graph;
    const fileTools = (this.fileTools = (document !== undefined ? declaredTools(document.getText(), graph ? { graph } : {}) : []) ?? this.fileTools);
    let svg = '';
    if (graph !== undefined) {
      const layout = layoutGraph(graph, fileTools);
      this.viewState = { ...this.viewState, unattached: layout.unattached };
      svg = renderSvg(layout);
    }
    const header = headerHtml(this.viewState, graph, document);
    void this.panel.webview.postMessage({ type: 'render', header, svg });
  }
}

function headerHtml(view: GraphViewState, graph: Graph | undefined, document: vscode.TextDocument | undefined): string {
  const parts: string[] = [];
  const where = `<code>${escapeXml(view.url)}</code>`;
  switch (view.state) {
    case 'loading':
      parts.push(`<p class="state loading">Fetching the graph from ${where}…</p>`);
      break;
    case 'connected': {
      const age = ageOf(graph?.fetchedAt, Date.now());
      const edges = graph?.edges?.length ?? 0;
      parts.push(`<p class="state connected">Live graph of ${where}: ${view.nodes.length} nodes, ${edges} edges${age !== undefined ? `, fetched ${escapeXml(age)}` : ''}${graph?.version !== undefined ? ` (10xgraph ${escapeXml(graph.version)})` : ''}.</p>`);
      break;
    }
    case 'offline':
      parts.push(`<p class="state offline">Graph offline — ${where}: ${escapeXml(view.message ?? '')}</p>`);
      break;
    default:
      parts.push(`<p class="state ${view.state}">${escapeXml(view.message ?? '')}</p>`);
  }
  if (document !== undefined) {
    const name = vscode.workspace.asRelativePath(document.uri);
    parts.push(
      view.unattached.length === 0
        ? `<p class="file">Tools of <code>${escapeXml(name)}</code>: all attached.</p>`
        : `<p class="file missing">Tools of <code>${escapeXml(name)}</code> the server has not attached: ${view.unattached.map((tool) => `<code>${escapeXml(tool.node)} / ${escapeXml(tool.name)}</code>`).join(', ')}. Restart the server with this config.</p>`,
    );
  }
  parts.push('<p class="legend"><span class="tool local">⚙ server tool</span> <span class="tool remote">⇄ remote tool</span> <span class="tool missing">✗ in the file, not attached</span></p>');
  return parts.join('');
}

function pageHtml(cspSource: string, nonceValue: string): string {
  // No network, no inline handlers: the script and style carry the nonce; images only from the extension.
  const csp = `default-src 'none'; img-src ${cspSource} data:; style-src 'nonce-${nonceValue}'; script-src 'nonce-${nonceValue}';`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>10xgraph Graph</title>
<style nonce="${nonceValue}">
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px 16px; }
  header { display: flex; align-items: baseline; gap: 12px; }
  button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 10px; cursor: pointer; }
  button:hover { background: var(--vscode-button-hoverBackground); }
  .state.offline, .file.missing, .tool.missing { color: var(--vscode-errorForeground); }
  .state.untrusted, .state.disabled { color: var(--vscode-descriptionForeground); }
  .legend { color: var(--vscode-descriptionForeground); font-size: 90%; }
  code { font-family: var(--vscode-editor-font-family); }
  svg.graph { font-family: var(--vscode-editor-font-family), monospace; font-size: 12px; max-width: 100%; height: auto; }
  .node rect { fill: var(--vscode-editorWidget-background); stroke: var(--vscode-editorWidget-border, #888); stroke-width: 1.5; }
  .node.kind-tool_node rect { stroke: var(--vscode-charts-blue, #3794ff); }
  .node.kind-model_node rect { stroke: var(--vscode-charts-purple, #b180d7); }
  .node.kind-function_node rect { stroke: var(--vscode-charts-green, #89d185); }
  .node.kind-orphan rect { stroke: var(--vscode-errorForeground, #f48771); stroke-dasharray: 4 3; }
  .node text { fill: var(--vscode-foreground); }
  .node text.name { font-weight: bold; }
  .node text.kind { fill: var(--vscode-descriptionForeground); font-size: 11px; }
  .node text.tool.local { fill: var(--vscode-descriptionForeground); }
  .node text.tool.remote { fill: var(--vscode-charts-blue, #3794ff); }
  .node text.tool.missing { fill: var(--vscode-errorForeground, #f48771); }
  .edge { fill: none; stroke: var(--vscode-descriptionForeground, #999); stroke-width: 1.5; }
  .edge.back { stroke-dasharray: 5 4; }
  .arrow { fill: var(--vscode-descriptionForeground, #999); }
</style>
</head>
<body>
<header><h2>10xgraph Graph</h2><button id="refresh" type="button">Refresh</button></header>
<div id="header"><p>Loading…</p></div>
<div id="graph"></div>
<script nonce="${nonceValue}">
  const vscode = acquireVsCodeApi();
  document.getElementById('refresh').addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || message.type !== 'render') return;
    // Both fragments are built by the extension with every text escaped.
    document.getElementById('header').innerHTML = message.header;
    document.getElementById('graph').innerHTML = message.svg;
  });
  vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
}

function nonce(): string {
  return randomBytes(24).toString('base64url');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
