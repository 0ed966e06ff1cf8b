/**
 * `10xgraph: Open Graph`: a webview that draws the graph a `10xgraph.json` is checked against.
 * What it draws comes from the language server (`10xgraph/graphView`): the graph the document's
 * diagnostics use, its status and the file's tools with the rule set's verdicts, so the drawing
 * and the Problems panel always agree. The webview itself has no network access at all: its
 * content security policy allows only its own nonce-tagged script and style.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { GraphViewParams, GraphViewResult, StatusParams } from '../../../common/protocol';
import { type Drawing, drawAnswer, type GraphViewState, loadingDrawing } from './drawing';

export type { GraphViewState };

/** What the panel needs from the rest of the extension. */
export interface GraphPanelDeps {
  /** Sends `10xgraph/graphView` to the language server: undefined when it does not run, null when it failed. */
  request: (params: GraphViewParams) => Promise<GraphViewResult | null | undefined>;
  /** The 10xgraph document the panel compares against (the active one, else the last one seen). */
  configDocument: () => vscode.TextDocument | undefined;
  output: vscode.OutputChannel;
}

// Typing in the file asks again once the typing pauses, as the diagnostics are pulled.
const REDRAW_DELAY_MS = 250;

/** The one graph panel of the window. */
export class GraphPanel implements vscode.Disposable {
  private static current: GraphPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private document: vscode.TextDocument | undefined;
  private drawing: Drawing = loadingDrawing();
  private loading: Promise<void> | undefined;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;
  private lastStatusKey = '';

  /** Opens the panel, or reveals it and asks again when it is open. */
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
        if (event.document === this.deps.configDocument()) this.scheduleReload();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        if (this.deps.configDocument() !== this.document) this.scheduleReload();
      }),
    );
    void this.reload();
  }

  /** What the view shows now. */
  get state(): GraphViewState {
    return this.drawing.view;
  }

  /** Resolves once a load in progress (if any) has finished. */
  async settled(): Promise<void> {
    while (this.loading !== undefined) await this.loading;
  }

  /** Asks again when the server reports that a graph changed (a new fetch, or a new state). */
  onStatus(status: StatusParams): void {
    const key = `${status.url} ${status.state} ${status.nodeCount ?? ''} ${status.fetchedAt ?? ''}`;
    if (key === this.lastStatusKey) return;
    this.lastStatusKey = key;
    void this.reload();
  }

  /** Asks the language server what to draw for the current document, and draws it. */
  reload(): Promise<void> {
    const run = async () => {
      const document = this.deps.configDocument();
      const scope = document?.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      let answer: GraphViewResult | null | undefined;
      try {
        answer = await this.deps.request(scope !== undefined ? { uri: scope.toString() } : {});
      } catch (error) {
        answer = null;
        this.deps.output.appendLine(`[graph view] the language server did not answer: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.document = document;
      this.drawing = drawAnswer(answer, document !== undefined ? vscode.workspace.asRelativePath(document.uri) : undefined, Date.now());
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

  private scheduleReload(): void {
    if (this.redrawTimer !== undefined) clearTimeout(this.redrawTimer);
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = undefined;
      void this.reload();
    }, REDRAW_DELAY_MS);
  }

  /** Sends the current drawing to the webview. */
  private post(): void {
    void this.panel.webview.postMessage({ type: 'render', header: this.drawing.header, svg: this.drawing.svg });
  }
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
  .state.untrusted, .state.disabled, .state.stopped { color: var(--vscode-descriptionForeground); }
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
