/** `textDocument/hover` in configs. */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the hover handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onHover(
    context.guard('hover', null, async ({ textDocument: { uri }, position }) => {
      const state = await context.states.checkedStateOf(uri);
      return state ? context.service.doHover(state, position, context.live.statusOf(state.settings, state.live)) : null;
    }),
  );
}
