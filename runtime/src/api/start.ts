/**
 * Start-up of `10xgraph api` (docs/spec.md §4): read the config, load the agent module, run the rule set
 * with the graph known, refuse on any error, attach the remote tools, log the warnings, serve.
 */
import { dirname, join, resolve } from 'node:path';
import { formatProblemLine } from '../rules/problemText';
import { escapeControl } from '../text/escapeControl';
import type { CompiledGraph } from '../graph/compiledGraph';
import { errorCodeOf, errorMessageOf } from '../graph/errors';
import { analyzeConfig, LineIndex, type Problem, type RemoteToolSchema } from '../rules/index';
import { loadConfigAgent } from '../agent/loadAgent';
import { ConfigReadError, displayPath, readConfigText } from '../workspace/configFile';
import { configFilesOf, defaultConfigPath, EnvFileError, loadEnvFile } from '../workspace/configFiles';
import { startupImportProblems } from '../workspace/pythonModules';
import { FILE_FIELDS } from '../rules/fields';
import { MissingPeerError } from '../peers';
import { createLogger, type ApiLogger, type LogFormat, type LogLevel } from './log';
import { isLoopbackAddress, OriginSettingError, splitList } from './origin';
import { loadSecurity, APPLIED_KEYS, SecuritySettingError, type SecurityOptions } from './security';
import { createApiServer, type ApiServer } from './server';
import { openThreadStore, type ThreadStore } from './store/index';

/** How to start a server from a config. */
export interface StartApiOptions {
  /** The config file (default `./10xgraph.json`). */
  configPath?: string;
  host?: string;
  /** 0 picks any free port (default 8000). */
  port?: number;
  /**
   * The thread database: a SQLite file (`:memory:` allowed) or a `postgres://` URL. Default
   * `TENXGRAPH_DATABASE_URL`, else `.10xgraph/threads.sqlite` beside the config.
   */
  db?: string;
  /** How long a thread's run lock lasts without renewal, in ms (PostgreSQL; default 30 s). */
  leaseMs?: number;
  /** How long shutdown lets runs in flight finish, in ms (default 10 s). */
  drainMs?: number;
  /** The bearer token (default `TENXGRAPH_TOKEN`). */
  token?: string;
  maxBodyBytes?: number;
  /** Browser origins allowed to call the server (default `TENXGRAPH_CORS_ORIGINS`, comma-separated). */
  corsOrigins?: string[];
  /** Host names the server answers to besides loopback and `host` (default `TENXGRAPH_ALLOWED_HOSTS`). */
  allowedHosts?: string[];
  /** The least severe level logged (default `info`). */
  logLevel?: LogLevel;
  /** `pretty` (default: each record's message, as docs/spec.md §4 shows the start-up lines) or `json`. */
  logFormat?: LogFormat;
  /** Where log lines go (default: a pino logger, information to stdout, warnings and errors to stderr). */
  log?: ApiLogger;
}

/** A running server. */
export interface RunningApiServer {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  url: string;
  graph: CompiledGraph;
  api: ApiServer;
  /** The server's log, for the lines of whoever runs it (the CLI's shutdown line). */
  log: ApiLogger;
  close(): Promise<void>;
}

/**
 * Start-up failed. `exitCode` is 1 for problems in the config (`lines` holds one
 * `FILE:LINE:COL: error [code] message` per error) and 2 when the server cannot run at all.
 */
export class ApiStartupError extends Error {
  readonly exitCode: 1 | 2;
  readonly lines: string[];

  constructor(exitCode: 1 | 2, lines: string[]) {
    // Each line is one line of text, whatever names from the file or the module it quotes.
    const escaped = lines.map(escapeControl);
    super(escaped.join('\n'));
    this.name = 'ApiStartupError';
    this.exitCode = exitCode;
    this.lines = escaped;
  }
}

/** A config checked against its loaded graph, with the remote tools attached. */
export interface PreparedAgent {
  graph: CompiledGraph;
  problems: Problem[];
  /** Warnings to log, formatted `FILE:LINE:COL: warning [code] message`. */
  warningLines: string[];
  /** Remote tools attached per node name. */
  attached: Map<string, number>;
  /** The top-level keys of the file this server reads but does not apply (settings of the Python server and its tools). */
  notApplied: string[];
  /** The config's root object, as parsed. */
  raw: Readonly<Record<string, unknown>>;
  /** The names the `env` file set in the environment. */
  envLoaded: string[];
}

/** The `env` path a config names, read without judging the rest of the file. */
function envPathOf(text: string): string | undefined {
  try {
    const root = JSON.parse(text) as unknown;
    const env = root && typeof root === 'object' && !Array.isArray(root) ? (root as Record<string, unknown>).env : undefined;
    return typeof env === 'string' && env !== '' ? env : undefined;
  } catch {
    return undefined;
  }
}

/** Loads the env file, or refuses to start (exit 1) with the reason when it cannot be loaded whole. */
function loadEnvFileOrRefuse(configPath: string, envPath: string, shown: string): string[] {
  try {
    return loadEnvFile(configPath, envPath);
  } catch (error) {
    if (error instanceof EnvFileError) throw new ApiStartupError(1, [`${shown}: error ${error.message}.`]);
    throw error;
  }
}

/** Problems in the order of the file. */
function byOffset(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.offset - b.offset);
}

/**
 * Reads the config, loads its agent module, runs the rule set with the graph known and attaches
 * the remote tools by node. Throws `ApiStartupError`. `shown` is how problem lines name the file.
 */
export async function prepareAgent(configPath: string, shown = displayPath(configPath)): Promise<PreparedAgent> {
  const text = readConfig(configPath, shown);
  const lines = new LineIndex(text);
  // The server's own environment is known here: a variable the config needs and nobody set
  // (`env-var-not-set`, a warning in the editor) stops this server as it stops the Python one.
  const fatal = (p: Problem) => p.severity === 'error' || p.code === 'env-var-not-set';
  const errorLines = (problems: Problem[]) => problems.filter(fatal).map((p) => formatProblemLine(shown, lines, { ...p, severity: 'error' }));
  // As the 10xGraph server does: the env file is loaded before the agent module is imported.
  const envPath = envPathOf(text);
  const envLoaded = envPath === undefined ? [] : loadEnvFileOrRefuse(configPath, envPath, shown);
  const files = () => configFilesOf(configPath, { environment: new Set(Object.keys(process.env)) });
  // The agent's module is needed before the graph rules can be judged. When it cannot be had,
  // the file is refused on its own problems (a file too broken to name an agent always has some).
  const loaded = await loadConfigAgent(configPath, text);
  // A `module:attribute` whose Python module beside the config binds no such name stops the Python server at start-up.
  const importErrors = await startupImportProblems(configPath, text);
  // A Python graph is not this server's to run, whatever else the file says: one line, exit 2.
  if (!loaded.ok && loaded.code === 'agent-module-python') throw new ApiStartupError(2, [loaded.error!]);
  if (!loaded.ok) {
    const errors = errorLines(byOffset([...analyzeConfig(text, { files: files() }).problems, ...importErrors]));
    if (errors.length) throw new ApiStartupError(1, errors);
    throw new ApiStartupError(2, [loaded.error ?? `${shown}: cannot find the agent to load; set "agent": "module:export".`]);
  }
  const graph = loaded.graph;
  const analysis = analyzeConfig(text, { graph: graph.toRuleGraph(), files: files() });
  const errors = errorLines(byOffset([...analysis.problems, ...importErrors]));
  if (errors.length || !analysis.config) throw new ApiStartupError(1, errors);
  const groups = new Map<string, RemoteToolSchema[]>();
  for (const tool of analysis.config.remoteTools) {
    const group = groups.get(tool.node);
    if (group) group.push(tool);
    else groups.set(tool.node, [tool]);
  }
  const attached = new Map<string, number>();
  for (const [node, schemas] of groups) {
    try {
      attached.set(node, graph.attachRemoteTools(schemas, node));
    } catch (error) {
      // The rule set judged the same graph, so this means the graph changed under it.
      throw new ApiStartupError(1, [`${shown}: error [${errorCodeOf(error) ?? 'attach-failed'}] ${errorMessageOf(error)}`]);
    }
  }
  const warningLines = analysis.problems.filter((p) => p.severity === 'warning').map((p) => formatProblemLine(shown, lines, p));
  const notApplied = Object.keys(analysis.config.raw).filter((key) => Object.prototype.hasOwnProperty.call(FILE_FIELDS, key) && !APPLIED_KEYS.has(key));
  return { graph, problems: analysis.problems, warningLines, attached, notApplied, envLoaded, raw: analysis.config.raw as Readonly<Record<string, unknown>> };
}

/**
 * Starts `10xgraph api` as docs/spec.md §4 says, logging `Attached N configured remote tools (to NODE,
 * ...)`, each warning, and `Listening on http://HOST:PORT`. Throws `ApiStartupError` without
 * listening when the config has errors or the server cannot run.
 */
export async function startApiServer(options: StartApiOptions = {}): Promise<RunningApiServer> {
  const configPath = options.configPath ?? defaultConfigPath();
  const log = options.log ?? createLogger({ level: options.logLevel, format: options.logFormat });
  const shown = displayPath(configPath);
  const prepared = await prepareAgent(configPath, shown);
  const total = [...prepared.attached.values()].reduce((sum, n) => sum + n, 0);
  // Node names come from the agent module and the config: escaped, as every log line of text.
  log.info(escapeControl(`Attached ${total} configured remote tools${prepared.attached.size ? ` (to ${[...prepared.attached.keys()].join(', ')})` : ''}`));
  for (const line of prepared.warningLines) log.warn(escapeControl(line));
  if (prepared.envLoaded.length) log.info(`Loaded ${prepared.envLoaded.length} variable${prepared.envLoaded.length === 1 ? '' : 's'} from the env file`);
  if (prepared.notApplied.length) {
    log.warn(`Not applied by 10xgraph api (settings of the Python 10xGraph server and its tools): ${prepared.notApplied.join(', ')}`, {
      event: 'settings_not_applied',
    });
  }
  const token = options.token ?? process.env.TENXGRAPH_TOKEN ?? '';
  let security: SecurityOptions;
  try {
    security = await loadSecurity(configPath, prepared.raw, process.env, token, log);
  } catch (error) {
    if (error instanceof SecuritySettingError) throw new ApiStartupError(1, [`${shown}: error ${escapeControl(error.message)}`]);
    if (error instanceof MissingPeerError) throw new ApiStartupError(2, [error.message]);
    throw error;
  }
  for (const line of security.lines) log[line.level](escapeControl(line.text), { event: 'security_setting' });
  const dbValue = options.db ?? (process.env.TENXGRAPH_DATABASE_URL || join(dirname(resolve(configPath)), '.10xgraph', 'threads.sqlite'));
  let store: ThreadStore;
  try {
    store = await openThreadStore(dbValue, options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs });
  } catch (error) {
    await security.rateLimit?.limiter.close();
    throw new ApiStartupError(2, [errorMessageOf(error)]);
  }
  log.info(`Threads in ${store.kind === 'postgres' ? `PostgreSQL at ${store.location}` : store.location === ':memory:' ? 'memory (lost on exit)' : `SQLite at ${store.location}`}`);
  let api: ApiServer;
  try {
    api = createApiServer({
      graph: prepared.graph,
      db: store,
      token,
      ...(security.auth ? { auth: security.auth } : {}),
      ...(security.authorization ? { authorization: security.authorization } : {}),
      ...(security.rateLimit ? { rateLimit: security.rateLimit } : {}),
      webSocketCaps: security.webSocketCaps,
      maxBodyBytes: options.maxBodyBytes,
      log,
      ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
      corsOrigins: options.corsOrigins ?? splitList([], process.env.TENXGRAPH_CORS_ORIGINS),
      allowedHosts: options.allowedHosts ?? splitList([], process.env.TENXGRAPH_ALLOWED_HOSTS),
    });
  } catch (error) {
    await store.close();
    await security.rateLimit?.limiter.close();
    if (error instanceof OriginSettingError) throw new ApiStartupError(2, [error.message]);
    throw error;
  }
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8000;
  let url: string;
  try {
    url = await api.listen(port, host);
  } catch (error) {
    await api.close();
    await store.close();
    const reason = errorCodeOf(error) === 'EADDRINUSE' ? 'the port is in use; stop the other server or pass another --port' : errorMessageOf(error);
    throw new ApiStartupError(2, [`Cannot listen on ${host}:${port}: ${reason}.`]);
  }
  log.info(`Listening on ${url}`);
  const warning = noTokenWarning(host, security.auth ? 'auth' : token);
  if (warning) log.warn(warning, { event: 'no_token_on_network' });
  return {
    url,
    graph: prepared.graph,
    api,
    log,
    async close() {
      await api.close();
      await store.close();
    },
  };
}

/** The start-up warning for a server listening beyond loopback without a token; undefined when there is none. */
export function noTokenWarning(host: string, token: string): string | undefined {
  if (token || isLoopbackAddress(host)) return undefined;
  return `WARNING: listening on ${host} without a token: anyone who can reach this address can run the graph and its server tools. Set TENXGRAPH_TOKEN, or listen on 127.0.0.1.`;
}

function readConfig(configPath: string, shown: string): string {
  try {
    return readConfigText(configPath, shown);
  } catch (error) {
    const message = errorMessageOf(error);
    if (error instanceof ConfigReadError && error.reason === 'missing')
      throw new ApiStartupError(2, [`Cannot read the config ${shown}: no such file; pass --config FILE or run in the folder of 10xgraph.json.`]);
    throw new ApiStartupError(2, [message]);
  }
}
