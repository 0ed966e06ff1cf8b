/**
 * `initialize`, `initialized` and `shutdown`; settings, trust and workspace folders as they
 * change.
 */
import { type Connection, DidChangeConfigurationNotification } from 'vscode-languageserver';
import { RULESET_VERSION } from '10xgraph/rules';
import { TrustNotification } from '../../../common/protocol';
import { statusNotificationFromInitializationOptions, storagePathFromInitializationOptions } from '../../../common/settings';
import type { FetchGraph } from '../liveGraph';
import { readClientSupport, serverCapabilities } from '../lsp/capabilities';
import type { ServerContext } from '../lsp/context';

/** Registers the lifecycle handlers; `fetchGraph` replaces the live graph's fetcher (tests, benchmarks). */
export function register(connection: Connection, context: ServerContext, fetchGraph?: FetchGraph): void {
  const { guard, settings } = context;
  connection.onInitialize((params) => {
    context.client = readClientSupport(params.capabilities);
    settings.initialize(params, context.client.configuration, process.env.TENXGRAPH_TOKEN);
    context.live.start(storagePathFromInitializationOptions(params.initializationOptions), fetchGraph, statusNotificationFromInitializationOptions(params.initializationOptions));
    return { capabilities: serverCapabilities(context.client, settings.fallback.files), serverInfo: { name: '10xgraph-language-server', version: RULESET_VERSION } };
  });
  connection.onInitialized(
    guard('initialized', undefined, async () => {
      const client = context.client;
      if (client.dynamicConfiguration) await connection.client.register(DidChangeConfigurationNotification.type, { section: '10xgraph' });
      if (client.workspaceFolders) {
        connection.workspace.onDidChangeWorkspaceFolders(
          guard('didChangeWorkspaceFolders', undefined, (event) =>
            settings.foldersChanged(
              event.added.map((f) => f.uri),
              event.removed.map((f) => f.uri),
            ),
          ),
        );
      }
      if (client.watchedFiles) await context.project.service.registerWatchers(settings.fallback.files).catch((e: unknown) => context.logError('registering file watchers', e));
      await context.live.sync();
      await context.project.index();
    }),
  );
  connection.onDidChangeConfiguration(guard('didChangeConfiguration', undefined, (params) => settings.configurationChanged(params.settings)));
  connection.onNotification(
    TrustNotification.type,
    guard('setTrusted', undefined, (params) => settings.trustChanged(params?.trusted !== false)),
  );
  connection.onShutdown(guard('shutdown', undefined, () => context.live.dispose()));
}
