/** `textDocument/definition`, `references`, `prepareRename` and `rename`, across configs and sources. */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';
import type { CheckedConfig } from '../service';

/** Registers the navigation and rename handlers. */
export function register(connection: Connection, context: ServerContext): void {
  const { guard, service } = context;
  /** The checked config at `uri`, or undefined for a source (or a document that is not a served config). */
  const configAt = async (uri: string): Promise<CheckedConfig | undefined> => (context.project.service.isSource(uri) ? undefined : context.states.checkedStateOf(uri));
  connection.onDefinition(guard('definition', [], async ({ textDocument: { uri }, position }) => service.findDefinition(uri, position, await configAt(uri))));
  connection.onReferences(
    guard('references', [], async ({ textDocument: { uri }, position, context: { includeDeclaration } }) =>
      service.findReferences(uri, position, includeDeclaration, await configAt(uri)),
    ),
  );
  connection.onPrepareRename(guard('prepareRename', null, async ({ textDocument: { uri }, position }) => service.prepareRename(uri, position, await configAt(uri))));
  connection.onRenameRequest(guard('rename', null, async ({ textDocument: { uri }, position, newName }) => service.doRename(uri, position, newName, await configAt(uri))));
}
