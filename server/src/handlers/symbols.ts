/** `textDocument/documentSymbol` in configs. */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the document-symbol handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onDocumentSymbol(
    context.guard('documentSymbol', [], async ({ textDocument: { uri } }) => {
      const state = await context.states.checkedStateOf(uri);
      return state ? context.service.findDocumentSymbols(state, context.client) : [];
    }),
  );
}
