/** `textDocument/completion`, in configs and in sources. */
import type { CompletionItem, Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the completion handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onCompletion(
    context.guard('completion', [] as CompletionItem[], async ({ textDocument: { uri }, position }) => {
      if (context.project.service.isSource(uri)) return context.service.doSourceComplete(uri, position);
      const state = await context.states.checkedStateOf(uri);
      return state ? context.service.doComplete(state, position, context.client) : [];
    }),
  );
}
