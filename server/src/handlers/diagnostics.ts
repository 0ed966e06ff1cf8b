/** `textDocument/diagnostic`: pulled diagnostics (pushed ones follow document changes, see `documentSync.ts`). */
import { type Connection, type DocumentDiagnosticReport, DocumentDiagnosticReportKind } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the pull-diagnostics handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.languages.diagnostics.on(
    context.guard('diagnostic', { kind: DocumentDiagnosticReportKind.Full, items: [] } as DocumentDiagnosticReport, (params) =>
      context.diagnostics.pull(params.textDocument.uri, params.previousResultId),
    ),
  );
}
