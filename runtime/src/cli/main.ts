/**
 * `10xgraph <command>`: the command-line entry. Each command lives in its own module and
 * returns its exit code; nothing here knows what a command does.
 */
import { runAudit } from './audit';
import { VERSION } from '../version';
import { escapeControl } from '../text/escapeControl';

const USAGE = `usage: 10xgraph <command> [options]

commands:
  audit [FILE] [--graph-url URL | --no-graph] [--format text|json|sarif] [--fix]
        check a 10xgraph.json (default ./10xgraph.json) with the rule set the server uses;
        runs the agent module's code unless --no-graph or --graph-url is given
  api [--config FILE] [--host 127.0.0.1] [--port 8000] [--db FILE]
        check the config, load the agent module and serve the graph over HTTP and WebSocket
  types [FILE] [--out FILE]
        write TypeScript types of the remote tools' arguments, for TenxGraphClient<RemoteTools>

Run '10xgraph <command> --help' for a command's options.`;

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'audit':
      return runAudit(rest);
    // `api` and `types` are bundles of their own (esbuild.mjs), loaded for their command only: an
    // audit, which CI runs on every push, neither parses nor starts the server or the type generator.
    case 'api':
      return (require('./api') as typeof import('./api')).runApi(rest);
    case 'types':
      return (require('./types') as typeof import('./types')).runTypes(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    case '--version':
    case '-v':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    default:
      process.stderr.write(`10xgraph: unknown command '${escapeControl(command)}'.\n\n${USAGE}\n`);
      return 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`10xgraph: ${escapeControl(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = 2;
    },
  );
}
