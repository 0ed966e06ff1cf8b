/** `workspace/executeCommand`: `10xgraph.refreshGraph` fetches the live graph again now. */
import type { Connection } from 'vscode-languageserver';
import { RefreshGraphCommand, type StatusParams } from '../../../common/protocol';
import type { ServerContext } from '../lsp/context';
import { describeStatus } from '../lsp/liveGraphs';

/** Registers the command handler. */
export function register(connection: Connection, context: ServerContext): void {
  connection.onExecuteCommand(
    context.guard('executeCommand', null as StatusParams[] | null, async ({ command, arguments: args = [] }) => {
      if (command !== RefreshGraphCommand.command) return null;
      const uri = typeof args[0] === 'string' ? args[0] : undefined;
      let statuses: StatusParams[] = [];
      if (uri) {
        const client = await context.live.clientFor(await context.settings.settingsFor(uri));
        if (client) statuses = await context.live.refresh(client.url);
      } else statuses = await context.live.refresh();
      // Feedback every editor shows (the custom status notification is VS Code's).
      if (statuses.length === 0) context.log('10xgraph: refetched no graph (no open config is checked against a server).');
      for (const status of statuses) context.log(`10xgraph: refetched the graph of ${status.url}: ${describeStatus(status)}`);
      return statuses;
    }),
  );
}
