/** `textDocument/foldingRange` and `textDocument/selectionRange` in configs. */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the folding and selection-range handlers. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onFoldingRanges(
    context.guard('foldingRange', [], async (params) => {
      const state = await context.states.checkedStateOf(params.textDocument.uri);
      return state ? context.service.getFoldingRanges(state) : [];
    }),
  );
  connection.onSelectionRanges(
    context.guard('selectionRange', [], async (params) => {
      const state = await context.states.checkedStateOf(params.textDocument.uri);
      return state ? context.service.getSelectionRanges(state, params.positions) : [];
    }),
  );
}
