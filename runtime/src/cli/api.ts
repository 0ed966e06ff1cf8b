/**
 * `10xgraph api [--config FILE] [--host 127.0.0.1] [--port 8000] [--db FILE|URL]`: check the config,
 * load the agent module and serve the graph. Exit 1 when the config has errors (each printed as
 * `FILE:LINE:COL: error [code] message`), 2 when the server cannot run (bad arguments, a missing
 * file or module, a port in use), 0 after a clean shutdown on SIGINT or SIGTERM.
 */
import { LOG_FORMATS, LOG_LEVELS, parseLogFormat, parseLogLevel } from '../api/log';
import { checkOriginSettings, OriginSettingError, splitList } from '../api/origin';
import { ApiStartupError, startApiServer, type StartApiOptions } from '../api/start';
import { parseStoreTarget } from '../api/store/index';
import { readArgs, UsageError, type OptionSpecs } from './args';
import { escapeControl } from '../text/escapeControl';

const HELP = `usage: 10xgraph api [--config FILE] [--host HOST] [--port PORT] [--db FILE|URL]
                    [--thread-lease SECONDS] [--cors-origin ORIGIN]... [--allowed-host NAME]...
                    [--log-level LEVEL] [--log-format pretty|json]

Checks the config with the rule set, loads its agent module and serves the graph over HTTP
and WebSocket. Refuses to start (exit 1) on any error in the config.

  --config FILE   the config (default ./10xgraph.json, or ./agentflow.json when only that exists)
  --host HOST     the address to listen on (default 127.0.0.1)
  --port PORT     the port (default 8000; 0 picks a free one)
  --db FILE|URL   where threads are kept: a SQLite file (default .10xgraph/threads.sqlite
                  beside the config, or TENXGRAPH_DATABASE_URL when set; :memory: keeps
                  threads in memory only), or postgres://user:password@host:port/db to
                  share threads between several api processes
  --thread-lease SECONDS
                  how long a process that died mid-run keeps its thread locked in
                  PostgreSQL (default 30; running processes renew it)
  --cors-origin ORIGIN
                  a browser origin allowed to call the server, e.g. http://localhost:5173
                  (repeatable; also TENXGRAPH_CORS_ORIGINS, comma-separated). Without a token
                  pages on loopback origins are allowed anyway; with one, only listed origins
  --allowed-host NAME
                  a host name the server answers to besides loopback and --host, e.g. behind
                  a proxy (repeatable; .example.com for a domain and its subdomains; also
                  TENXGRAPH_ALLOWED_HOSTS). Other Host headers are refused (DNS rebinding)
  --log-level LEVEL
                  error, warn, info (default) or debug
  --log-format FORMAT
                  pretty (default: one readable line a record) or json (one object a line)

Set TENXGRAPH_TOKEN to require 'Authorization: Bearer <token>' on every route but /ping.
Listening on an address other than loopback without a token is warned about at start-up.
On SIGTERM or SIGINT the server stops accepting, lets runs in flight finish (10 s at most),
closes the thread database and exits 0.

Exit status: 0 stopped cleanly, 1 errors in the config, 2 could not run.`;

const OPTIONS: OptionSpecs = {
  help: { type: 'boolean', short: 'h' },
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  db: { type: 'string' },
  'thread-lease': { type: 'string' },
  'cors-origin': { type: 'string' },
  'allowed-host': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
};

function parseArgs(argv: string[]): StartApiOptions | 'help' {
  const options: StartApiOptions = { host: '127.0.0.1', port: 8000 };
  const corsOrigins: string[] = [];
  const allowedHosts: string[] = [];
  for (const { flag, value } of readArgs(argv, OPTIONS)) {
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--config':
        options.configPath = value();
        break;
      case '--host':
        options.host = value();
        break;
      case '--port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port takes a port number from 0 to 65535, not '${text}'.`);
        options.port = port;
        break;
      }
      case '--db': {
        const db = value();
        try {
          parseStoreTarget(db);
        } catch (error) {
          throw new UsageError(`--db: ${(error as Error).message}`);
        }
        options.db = db;
        break;
      }
      case '--thread-lease': {
        const text = value();
        const seconds = Number(text);
        if (!/^\d+(\.\d+)?$/.test(text) || seconds < 1 || seconds > 3600) throw new UsageError(`--thread-lease takes a number of seconds from 1 to 3600, not '${text}'.`);
        options.leaseMs = Math.round(seconds * 1000);
        break;
      }
      case '--cors-origin':
        corsOrigins.push(value());
        break;
      case '--allowed-host':
        allowedHosts.push(value());
        break;
      case '--log-level': {
        const text = value();
        options.logLevel = parseLogLevel(text);
        if (!options.logLevel) throw new UsageError(`--log-level takes ${LOG_LEVELS.join(', ')}, not '${text}'.`);
        break;
      }
      case '--log-format': {
        const text = value();
        options.logFormat = parseLogFormat(text);
        if (!options.logFormat) throw new UsageError(`--log-format takes ${LOG_FORMATS.join(' or ')}, not '${text}'.`);
        break;
      }
      default:
        throw new UsageError(`unknown ${flag.startsWith('-') ? 'option' : 'argument'} '${flag}'.`);
    }
  }
  // Flags and variables add up; a malformed entry stops start-up before anything is loaded.
  options.corsOrigins = splitList(corsOrigins, process.env.TENXGRAPH_CORS_ORIGINS);
  options.allowedHosts = splitList(allowedHosts, process.env.TENXGRAPH_ALLOWED_HOSTS);
  try {
    checkOriginSettings(options.corsOrigins, options.allowedHosts);
  } catch (error) {
    if (error instanceof OriginSettingError) throw new UsageError(error.message);
    throw error;
  }
  return options;
}

/** Runs `10xgraph api` with `argv`; resolves to the exit code once the server stops. */
export async function runApi(argv: string[]): Promise<number> {
  let options: StartApiOptions | 'help';
  try {
    options = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`10xgraph api: ${escapeControl((error as Error).message)}\nRun '10xgraph api --help' for usage.\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  // The signal handlers come first: "Listening on" is printed during start-up, and a signal
  // that follows it at once must still stop the server cleanly (closing the thread database).
  let signalled: NodeJS.Signals | undefined;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    signalled ??= signal;
  };
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  const detach = () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  let server;
  try {
    server = await startApiServer(options);
  } catch (error) {
    detach();
    if (error instanceof ApiStartupError) {
      const prefix = error.exitCode === 2 ? '10xgraph api: ' : '';
      for (const line of error.lines) process.stderr.write(prefix + escapeControl(line) + '\n');
      if (error.exitCode === 1) process.stderr.write('10xgraph api: not started: fix the errors above and start again.\n');
      return error.exitCode;
    }
    throw error;
  }
  const running = server;
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      detach();
      running.log.info(`Stopping (${signal})`, { event: 'stopping', signal });
      running.close().then(
        () => resolve(0),
        (error: unknown) => {
          running.log.error(`10xgraph api: shutdown failed: ${error instanceof Error ? error.message : String(error)}`, { event: 'shutdown_failed' });
          resolve(1);
        },
      );
    };
    onSignal = stop;
    if (signalled) stop(signalled);
  });
}
