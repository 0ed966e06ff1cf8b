/** `workspace/executeCommand`: `10xgraph.refreshGraph` fetches the live graph again now. */
import type { Connection } from 'vscode-languageserver';
import { RefreshGraphCommand, type StatusParams } from '../../../common/protocol';
import type { ServerContext } from '../lsp/context';

/** Registers the command handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onExecuteCommand(
    context.guard('executeCommand', null as StatusParams[] | null, async ({ command, arguments: args = [] }) => {
      if (command !== RefreshGraphCommand.command) return null;
      const uri = typeof args[0] === 'string' ? args[0] : undefined;
      if (uri) {
        const client = await context.live.clientFor(await context.settings.settingsFor(uri));
        return client ? context.live.refresh(client.url) : [];
      }
      return context.live.refresh();
    }),
  );
}
