/** `textDocument/codeLens` and `textDocument/documentLink` in configs (what the project knows of each tool and of `agent`). */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the code-lens and document-link handlers. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onCodeLens(
    context.guard('codeLens', [], async (params) => {
      const state = await context.states.checkedStateOf(params.textDocument.uri);
      return state ? context.service.getCodeLenses(state) : [];
    }),
  );
  connection.onDocumentLinks(
    context.guard('documentLink', [], async (params) => {
      const state = await context.states.checkedStateOf(params.textDocument.uri);
      return state ? context.service.findDocumentLinks(state) : [];
    }),
  );
}
