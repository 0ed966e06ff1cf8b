/**
 * `10xgraph: Audit Workspace`: every file the `10xgraph.files` globs match, checked by the
 * language server, with the results in the Problems panel.
 *
 * The language client pulls diagnostics only for files shown in an editor tab. For the others
 * the audit opens each file as a document (the server receives it with `didOpen`) and asks the
 * server for its diagnostics with the standard `textDocument/diagnostic` request, the same one
 * the client uses for open tabs. The answers go into a collection of their own, which steps
 * aside for a file while a tab shows it (the client reports it then) and takes it back when the
 * tab closes, so a problem is never listed twice.
 */
import * as vscode from 'vscode';
import { DidOpenTextDocumentNotification, DocumentDiagnosticReportKind, DocumentDiagnosticRequest, type LanguageClient } from 'vscode-languageclient/node';

/** What one audit found. */
export interface AuditSummary {
  files: number;
  errors: number;
  warnings: number;
  infos: number;
  /** Files whose diagnostics could not be obtained, with why. */
  failed: { uri: string; error: string }[];
}

/** Keeps the audit's results and refreshes them while the files change. */
export class WorkspaceAuditor implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('10xgraph-audit');
  /** Files an audit covered: their results stay listed until the file is deleted. */
  private readonly audited = new Map<string, vscode.Uri>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly getClient: () => LanguageClient | undefined,
    private readonly output: vscode.OutputChannel,
  ) {
    this.subscriptions.push(
      this.collection,
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.opened) {
          const uri = uriOfTab(tab);
          if (uri !== undefined && this.audited.has(uri.toString())) this.collection.delete(uri);
        }
        for (const tab of event.closed) {
          const uri = uriOfTab(tab);
          if (uri !== undefined && this.audited.has(uri.toString()) && !isInTab(uri)) void this.refreshOne(uri);
        }
      }),
    );
  }

  /** Watches the audited files: a change is audited again, a deletion drops the file's results. */
  watch(globs: string[]): vscode.Disposable {
    const watchers = globs.map((glob) => vscode.workspace.createFileSystemWatcher(glob));
    for (const watcher of watchers) {
      watcher.onDidChange((uri) => {
        if (this.audited.has(uri.toString()) && !isInTab(uri)) void this.refreshOne(uri);
      });
      watcher.onDidDelete((uri) => {
        this.audited.delete(uri.toString());
        this.collection.delete(uri);
      });
    }
    return vscode.Disposable.from(...watchers);
  }

  /** Forgets every result (the server restarted; its answers may differ now). */
  clear(): void {
    this.audited.clear();
    this.collection.clear();
  }

  /** Audits every file the globs match and reports a summary. */
  async auditWorkspace(globs: string[], token?: vscode.CancellationToken): Promise<AuditSummary> {
    const uris = await findFiles(globs, token);
    const summary: AuditSummary = { files: 0, errors: 0, warnings: 0, infos: 0, failed: [] };
    for (const uri of uris) {
      if (token?.isCancellationRequested === true) break;
      this.audited.set(uri.toString(), uri);
      try {
        const diagnostics = isInTab(uri) ? await this.diagnosticsOfTab(uri) : await this.refreshOne(uri);
        summary.files += 1;
        for (const diagnostic of diagnostics) {
          if (diagnostic.severity === vscode.DiagnosticSeverity.Error) summary.errors += 1;
          else if (diagnostic.severity === vscode.DiagnosticSeverity.Warning) summary.warnings += 1;
          else summary.infos += 1;
        }
        this.output.appendLine(`[audit] ${vscode.workspace.asRelativePath(uri)}: ${describeCounts(diagnostics)}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        summary.failed.push({ uri: uri.toString(), error: message });
        this.output.appendLine(`[audit] ${vscode.workspace.asRelativePath(uri)}: not checked: ${message}`);
      }
    }
    return summary;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** Asks the server for one file's diagnostics and lists them; resolves to what was listed. */
  private async refreshOne(uri: vscode.Uri): Promise<vscode.Diagnostic[]> {
    const { diagnostics, pulled } = await this.askServer(uri);
    // A tab may have opened meanwhile: then the client lists the file, and this collection must
    // not. A server that pushes lists the file through the client already.
    if (isInTab(uri) || !pulled) this.collection.delete(uri);
    else this.collection.set(uri, diagnostics);
    return diagnostics;
  }

  /** The diagnostics the client lists for a file shown in a tab. */
  private async diagnosticsOfTab(uri: vscode.Uri): Promise<vscode.Diagnostic[]> {
    this.collection.delete(uri);
    return (await this.askServer(uri)).diagnostics;
  }

  private async askServer(uri: vscode.Uri): Promise<{ diagnostics: vscode.Diagnostic[]; pulled: boolean }> {
    const client = this.getClient();
    if (client === undefined) throw new Error('the language server is not running');
    if (client.initializeResult?.capabilities.diagnosticProvider === undefined) {
      // A server that only pushes: opening the file makes it publish; wait for that.
      const published = nextDiagnosticsOf(uri, 5000);
      await openForServer(client, uri);
      await published;
      return { diagnostics: vscode.languages.getDiagnostics(uri).filter((d) => d.source === '10xgraph'), pulled: false };
    }
    await openForServer(client, uri);
    const report = await client.sendRequest(DocumentDiagnosticRequest.type, {
      textDocument: { uri: client.code2ProtocolConverter.asUri(uri) },
    });
    const items = report.kind === DocumentDiagnosticReportKind.Full ? report.items : [];
    return { diagnostics: await client.protocol2CodeConverter.asDiagnostics(items), pulled: true };
  }
}

/** Resolves on the next diagnostics change of `uri`, or after `ms` (a server may publish nothing new). */
function nextDiagnosticsOf(uri: vscode.Uri, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const subscription = vscode.languages.onDidChangeDiagnostics((event) => {
      if (event.uris.some((changed) => changed.toString() === uri.toString())) done();
    });
  });
}

/** One sentence for people: "audited 3 files: 2 errors, 1 warning." */
export function describeSummary(summary: AuditSummary): string {
  const counts = [plural(summary.errors, 'error'), plural(summary.warnings, 'warning'), plural(summary.infos, 'note')].filter((part) => part !== '');
  const failed = summary.failed.length > 0 ? ` ${plural(summary.failed.length, 'file')} could not be checked (see the 10xgraph output).` : '';
  return `audited ${plural(summary.files, 'file') || '0 files'}: ${counts.length > 0 ? counts.join(', ') : 'no problems'}.${failed}`;
}

/** One line for people: "2 errors, 1 warning" or "no problems". */
function describeCounts(diagnostics: readonly vscode.Diagnostic[]): string {
  const count = (severity: vscode.DiagnosticSeverity) => diagnostics.filter((d) => d.severity === severity).length;
  const parts = [
    plural(count(vscode.DiagnosticSeverity.Error), 'error'),
    plural(count(vscode.DiagnosticSeverity.Warning), 'warning'),
    plural(count(vscode.DiagnosticSeverity.Information) + count(vscode.DiagnosticSeverity.Hint), 'note'),
  ].filter((part) => part !== '');
  return parts.length === 0 ? 'no problems' : parts.join(', ');
}

function plural(n: number, word: string): string {
  return n === 0 ? '' : `${n} ${word}${n === 1 ? '' : 's'}`;
}

async function findFiles(globs: string[], token?: vscode.CancellationToken): Promise<vscode.Uri[]> {
  const found = new Map<string, vscode.Uri>();
  for (const glob of globs) {
    for (const uri of await vscode.workspace.findFiles(glob, '**/node_modules/**', undefined, token)) found.set(uri.toString(), uri);
  }
  return [...found.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

/**
 * Opens the file as a document and waits until the client has sent the server its `didOpen`,
 * so that the diagnostic request that follows finds the text there.
 */
async function openForServer(client: LanguageClient, uri: vscode.Uri): Promise<void> {
  const openFeature = client.getFeature(DidOpenTextDocumentNotification.method);
  const key = uri.toString();
  const isSynced = () => [...openFeature.openDocuments].some((document) => document.uri.toString() === key);
  if (isSynced()) return;
  const sent = new Promise<void>((resolve) => {
    const subscription = openFeature.onNotificationSent((event) => {
      if (event.params.textDocument.uri === client.code2ProtocolConverter.asUri(uri)) {
        subscription.dispose();
        resolve();
      }
    });
    // The document may have been synced between the check above and the subscription.
    if (isSynced()) {
      subscription.dispose();
      resolve();
    }
  });
  await vscode.workspace.openTextDocument(uri);
  await withTimeout(sent, 10_000, `the server was not sent ${vscode.workspace.asRelativePath(uri)} within 10 s`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function uriOfTab(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}

function isInTab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => uriOfTab(tab)?.toString() === key));
}
