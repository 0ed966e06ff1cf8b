/** The open documents (`didOpen`, `didChange`, `didSave`, `didClose`) and the watched files. */
import type { Connection } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

// A save right after a fetch does not fetch again (autosave can save on every pause).
const SAVE_REFETCH_GAP_MS = 2000;

/** Registers the document handlers and starts the document manager on `connection`. */
export function register(connection: Connection, context: ServerContext): void {
  const { documents, guard, settings, live, project, states, diagnostics } = context;
  documents.onDidChangeContent(
    guard('didChange', undefined, (event) => {
      project.edited(event.document.uri);
      diagnostics.changed(event.document.uri);
    }),
  );
  documents.onDidOpen(guard('didOpen', undefined, () => live.sync()));
  documents.onDidClose(
    guard('didClose', undefined, (event) => {
      const uri = event.document.uri;
      project.service.closed(uri);
      live.closed(uri);
      states.closed(uri);
      settings.forget(uri);
      diagnostics.closed(uri);
      void live.sync();
    }),
  );
  documents.onDidSave(
    guard('didSave', undefined, async (event) => {
      const uri = event.document.uri;
      const scoped = await settings.settingsFor(uri);
      if (!settings.isServed(uri, scoped) || settings.modeOf(scoped) !== 'live') return;
      const client = live.existing(scoped.server.url);
      if (client && client.sinceLastFetch() >= SAVE_REFETCH_GAP_MS) await client.refresh();
    }),
  );
  connection.onDidChangeWatchedFiles(guard('didChangeWatchedFiles', undefined, (params) => project.service.filesChanged(params.changes)));
  documents.listen(connection);
}
