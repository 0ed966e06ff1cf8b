/**
 * `10xgraph-language-server --stdio | --node-ipc | --socket=PORT`: the entry of the bundled
 * language server. The transport comes from the command line (read by `createConnection`);
 * without one, stdio is used, which is what most editors expect.
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { RULESET_VERSION } from '10xgraph/rules';
import { startServer } from './server';

const USAGE = `usage: 10xgraph-language-server [--stdio | --node-ipc | --socket=PORT]

The language server for 10xgraph.json: diagnostics from the 10xgraph rule set, checks
against a running 10xgraph server's graph, quick fixes, completion, hover and symbols.`;

/** Starts the server on the transport named in `argv`, or prints usage or the version. */
function main(argv: string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`${RULESET_VERSION}\n`);
    return;
  }
  if (!argv.some((a) => a === '--stdio' || a === '--node-ipc' || a.startsWith('--socket') || a.startsWith('--pipe'))) {
    process.argv.push('--stdio');
  }
  const connection = createConnection(ProposedFeatures.all);
  // The last line of defence: whatever escapes a handler is logged, and the server keeps serving.
  process.on('uncaughtException', (error) => connection.console.error(`10xgraph: uncaught error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) =>
    connection.console.error(`10xgraph: unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`),
  );
  startServer(connection);
  connection.listen();
}

main(process.argv.slice(2));
