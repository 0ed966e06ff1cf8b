/** `textDocument/codeAction`: the quick fixes of a config's or a source's diagnostics, and a config's fix-all action. */
import type { CodeAction, Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the code-action handler. */
export function register(connection: Connection, context: ServerContext): void {
  const project = context.project.service;
  connection.onCodeAction(
    context.guard('codeAction', [] as CodeAction[], async ({ textDocument: { uri }, context: request }) => {
      // A source outside the project (a dependency in node_modules, an ignored folder) gets no edit, as from a rename.
      if (project.isSource(uri) && !(await project.includesUri(uri))) return [];
      const source = project.sourceState(uri);
      if (source) return context.service.doSourceCodeActions({ uri, version: source.version, lines: source.lines }, request, context.client);
      const state = await context.states.checkedStateOf(uri);
      return state ? context.service.doCodeActions(state, request, context.client) : [];
    }),
  );
}
