/**
 * The language server's wiring: it makes the server's parts (settings, live graphs, the project,
 * document states, diagnostics, the language service) and lets each handler register itself on
 * the connection. The answers are the language service's (`service/`), the state and scheduling
 * the parts' in `lsp/`; every handler catches, logs to the connection's console and answers an
 * empty result, so no request can crash the server.
 */
import { type Connection, TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { configFilesOf } from './configFiles';
import type { FetchGraph } from './liveGraph';
import { NO_CLIENT_SUPPORT } from './lsp/capabilities';
import type { ServerContext } from './lsp/context';
import { createGuard, createLogger } from './lsp/logger';
import { DiagnosticsScheduler } from './lsp/diagnosticsScheduler';
import { DocumentStates } from './lsp/documentStates';
import { LiveGraphs } from './lsp/liveGraphs';
import { ServerProject } from './lsp/project';
import { SettingsStore } from './lsp/settings';
import { getLanguageService } from './service';
import * as codeActions from './handlers/codeActions';
import * as codeLens from './handlers/codeLens';
import * as commands from './handlers/commands';
import * as completion from './handlers/completion';
import * as diagnostics from './handlers/diagnostics';
import * as documentSync from './handlers/documentSync';
import * as formatting from './handlers/formatting';
import * as graphView from './handlers/graphView';
import * as hover from './handlers/hover';
import * as lifecycle from './handlers/lifecycle';
import * as navigation from './handlers/navigation';
import * as structure from './handlers/structure';
import * as symbols from './handlers/symbols';

/** What the server takes from its surroundings; tests and benchmarks may replace parts. */
export interface ServerEnvironment {
  fetchGraph?: FetchGraph;
  now?: () => number;
}

/** The handlers, each registering its requests and notifications on the connection. */
const HANDLERS = [documentSync, diagnostics, completion, hover, symbols, formatting, structure, navigation, codeActions, codeLens, commands, graphView];

/** Wires a 10xgraph language server onto `connection`. Call `connection.listen()` afterwards. */
export function startServer(connection: Connection, environment: ServerEnvironment = {}): void {
  const documents = new TextDocuments(TextDocument);
  const now = environment.now ?? Date.now;
  const logger = createLogger(connection);
  // The parts call one another back through `context`, which is complete before the first message.
  const context = { connection, documents, now, client: NO_CLIENT_SUPPORT, guard: createGuard(logger), ...logger } as ServerContext;
  const refresh = () => context.diagnostics.refresh();
  context.settings = new SettingsStore(connection, logger, () => {
    void context.live.sync().then(refresh);
    void context.project.index();
  });
  context.live = new LiveGraphs({ connection, documents, settings: context.settings, logger, now, graphChanged: refresh });
  context.project = new ServerProject({
    connection,
    documents,
    settings: context.settings,
    logger,
    now,
    changed: refresh,
    diagnosticsSettled: () => context.diagnostics.settled(),
    unreadSourceOf: (config) => context.states.unreadSourceOf(config),
  });
  context.service = getLanguageService({ configFiles: (uri) => configFilesOf(uri, context.settings.folders), project: context.project.features, now });
  context.states = new DocumentStates({
    documents,
    settings: context.settings,
    live: context.live,
    project: context.project,
    service: context.service,
    logger,
    now,
    agentsChanged: refresh,
  });
  context.diagnostics = new DiagnosticsScheduler({
    connection,
    documents,
    states: context.states,
    project: context.project,
    service: context.service,
    logger,
    client: () => context.client,
  });
  lifecycle.register(connection, context, environment.fetchGraph);
  for (const handler of HANDLERS) handler.register(connection, context);
}
