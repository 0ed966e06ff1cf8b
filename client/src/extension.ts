/**
 * The 10xgraph extension: starts the language server for the files `10xgraph.files` matches,
 * shows the live graph's state in the status bar, and contributes the 10xgraph commands.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { GraphViewRequest, RefreshGraphCommand, type StatusParams } from '../../common/protocol';
import { describeSummary, WorkspaceAuditor, type AuditSummary } from './audit';
import { GraphPanel, type GraphViewState } from './graphView/graphPanel';
import { LanguageModeAssigner } from './languageMode';
import { ServerController } from './serverController';
import { readSettings, SECTION } from './settings';
import { GraphStatusBar, STATUS_CLICK_COMMAND } from './statusBar';
import { promptForToken, TokenStore } from './tokens';

/** What `activate` returns: a small API, used by the end-to-end tests and open to other extensions. */
export interface TenxGraphApi {
  /** Resolves once the language server runs (starting it if needed). */
  ready(): Promise<void>;
  /** The last `10xgraph/status` the server sent. */
  status(): StatusParams | undefined;
  /** The status bar item's text. */
  statusText(): string;
  /** Runs `10xgraph: Audit Workspace` without its notification. */
  auditWorkspace(): Promise<AuditSummary>;
  /** What the graph view shows, once any load in progress is done; undefined when it is closed. */
  graphView(): Promise<GraphViewState | undefined>;
}

let controller: ServerController | undefined;

/** Activates the extension (VS Code calls it on the activation events of the manifest). */
export function activate(context: vscode.ExtensionContext): TenxGraphApi {
  const output = vscode.window.createOutputChannel('10xgraph');
  const tokens = new TokenStore(context.secrets);
  const assigner = new LanguageModeAssigner(readSettings().files);
  const server = new ServerController(context, output, tokens, (document) => assigner.willSwitch(document));
  controller = server;
  const auditor = new WorkspaceAuditor(() => server.running, output);
  let statusBar: GraphStatusBar | undefined;
  let watcher = auditor.watch(readSettings().files);
  let lastConfigDocument: vscode.TextDocument | undefined;
  context.subscriptions.push(output, tokens, server, assigner, auditor, {
    dispose: () => {
      watcher.dispose();
      statusBar?.dispose();
      GraphPanel.open?.dispose();
    },
  });

  const configDocument = (): vscode.TextDocument | undefined => {
    const active = vscode.window.activeTextEditor?.document;
    if (active !== undefined && assigner.matches(active)) lastConfigDocument = active;
    if (lastConfigDocument?.isClosed === true) lastConfigDocument = undefined;
    return lastConfigDocument ?? vscode.workspace.textDocuments.find((document) => assigner.matches(document));
  };

  const ensureStarted = async (): Promise<void> => {
    statusBar ??= new GraphStatusBar();
    await server.start();
  };

  server.onStatus((status) => {
    statusBar?.update(status);
    GraphPanel.open?.onStatus(status);
  });
  server.onDidChangeClient((client) => {
    if (client === undefined && statusBar !== undefined) {
      statusBar.reset('the language server is not running. Run "10xgraph: Restart Language Server"; the 10xgraph output says why it stopped.');
    }
  });

  const restart = async (why: string): Promise<void> => {
    output.appendLine(`[client] restarting the language server: ${why}`);
    auditor.clear();
    statusBar?.reset();
    await server.restart();
    statusBar ??= new GraphStatusBar();
    void GraphPanel.open?.reload();
  };

  const refresh = async (): Promise<void> => {
    await ensureStarted();
    const client = server.running;
    if (client === undefined) {
      void vscode.window.showWarningMessage('10xgraph: the language server is not running. Run "10xgraph: Restart Language Server".');
      return;
    }
    statusBar?.showRefreshing();
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command: RefreshGraphCommand.command, arguments: [] });
    } catch (error) {
      output.appendLine(`[client] refreshing the graph failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    void GraphPanel.open?.reload();
  };

  const openSettings = () => vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.server`);

  context.subscriptions.push(
    vscode.commands.registerCommand('10xgraph.refresh', refresh),
    vscode.commands.registerCommand('10xgraph.auditWorkspace', async () => {
      await ensureStarted();
      const summary = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: '10xgraph: auditing the workspace', cancellable: true },
        (_progress, cancel) => auditor.auditWorkspace(readSettings().files, cancel),
      );
      const choice = await vscode.window.showInformationMessage(
        summary.files === 0 && summary.failed.length === 0
          ? `10xgraph: no file matches ${readSettings().files.join(', ')} in this workspace.`
          : `10xgraph: ${describeSummary(summary)}`,
        ...(summary.files > 0 ? ['Show Problems'] : []),
      );
      if (choice === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
      return summary;
    }),
    vscode.commands.registerCommand('10xgraph.setServerToken', async () => {
      const origin = await promptForToken(tokens, readSettings().server.url);
      // The token reaches the server at start-up and with each settings answer; restart so that it is used now.
      if (origin !== undefined && server.running !== undefined) await restart(`the token of ${origin} changed`);
    }),
    vscode.commands.registerCommand('10xgraph.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('10xgraph.restartServer', () => restart('requested')),
    vscode.commands.registerCommand('10xgraph.openGraph', async () => {
      await ensureStarted();
      GraphPanel.show({ request: async (params) => server.running?.sendRequest(GraphViewRequest.type, params), configDocument, output });
    }),
    vscode.commands.registerCommand(STATUS_CLICK_COMMAND, () => (statusBar?.action === 'refresh' ? refresh() : openSettings())),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart('the workspace is trusted now')),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.files`)) {
        const files = readSettings().files;
        assigner.update(files);
        watcher.dispose();
        watcher = auditor.watch(files);
        // The document selector is fixed when the client starts.
        if (server.running !== undefined) void restart('10xgraph.files changed');
      } else if (event.affectsConfiguration(SECTION)) {
        void GraphPanel.open?.reload();
      }
    }),
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (assigner.matches(document)) void ensureStarted();
    }),
    vscode.window.onDidChangeActiveTextEditor(() => configDocument()),
  );

  // Start when a 10xgraph file is open or in the workspace (without holding up activation); otherwise on the first one opened.
  const hasOpenConfig = vscode.workspace.textDocuments.some((document) => assigner.matches(document));
  if (hasOpenConfig) {
    void ensureStarted();
  } else {
    void findAny(readSettings().files).then((found) => (found ? ensureStarted() : undefined));
  }

  return {
    ready: ensureStarted,
    status: () => statusBar?.current,
    statusText: () => statusBar?.text ?? '',
    auditWorkspace: async () => {
      await ensureStarted();
      const summary = await auditor.auditWorkspace(readSettings().files);
      output.appendLine(`[audit] ${describeSummary(summary)}`);
      return summary;
    },
    graphView: async () => {
      const panel = GraphPanel.open;
      if (panel === undefined) return undefined;
      await panel.settled();
      return panel.state;
    },
  };
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

async function findAny(globs: string[]): Promise<boolean> {
  for (const glob of globs) {
    if ((await vscode.workspace.findFiles(glob, '**/node_modules/**', 1)).length > 0) return true;
  }
  return false;
}
