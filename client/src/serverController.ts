/**
 * Starts, restarts and stops the language server (dist/server.js, over IPC) and hands it the
 * settings, the workspace trust and the token of its server's origin.
 */
import * as vscode from 'vscode';
import { LanguageClient, RevealOutputChannelOn, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { StatusNotification, type InitializationOptions, type RawSettings, type StatusParams } from '../../common/protocol';
import { parseSettings, sectionWithToken } from '../../common/settings';
import { plainSection, readSettings, SECTION } from './settings';
import type { TokenStore } from './tokens';
import { selectorOf } from './languageMode';

/** The documents on disk the language server reads: JS/TS sources (handlers, TypeScript graphs) and Python modules (graphs). */
const SOURCE_SELECTOR = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'python'].map((language) => ({ scheme: 'file', language }));

/** Owns the one `LanguageClient` of the window and recreates it when what it was started with changes. */
export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<StatusParams>();
  private readonly runningEmitter = new vscode.EventEmitter<LanguageClient | undefined>();
  /** Fires with each `10xgraph/status` the server sends. */
  readonly onStatus = this.statusEmitter.event;
  /** Fires with the client once it runs, and with undefined when it stops on its own (a crash). */
  readonly onDidChangeClient = this.runningEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly tokens: TokenStore,
    /**
     * Documents that are about to change language mode (a `json` file a custom glob matches,
     * switched to `10xgraph-json`): the server hears of them once, in their final mode.
     */
    private readonly isAboutToSwitch: (document: vscode.TextDocument) => boolean = () => false,
  ) {}

  /** The running client, if the server is up. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** The globs the running client serves. */
  get files(): string[] {
    return readSettings().files;
  }

  /** Starts the server unless it runs. Resolves once it is initialised (or failed, which is logged). */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Stops the server and starts a fresh one: new settings, trust and token take effect. */
  async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  /** Stops the server; later `start` calls start a new one. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      if (client.isRunning()) await client.stop(5000);
    } catch (error) {
      this.output.appendLine(`[client] stopping the language server failed: ${String(error)}`);
    }
    try {
      await client.dispose();
    } catch {
      // Already stopped: disposing it a second time only repeats the stop's error.
    }
  }

  dispose(): void {
    void this.stop();
    this.statusEmitter.dispose();
    this.runningEmitter.dispose();
  }

  private async doStart(): Promise<void> {
    if (this.client !== undefined) return;
    const trusted = vscode.workspace.isTrusted;
    const settings = readSettings();
    // The token travels in initializationOptions too, for servers that read only those; it is
    // looked up by the configured URL's origin and sent pinned to that URL, so the server never
    // pairs it with another one.
    const token = trusted ? await this.tokens.tokenFor(settings.server.url) : undefined;
    const serverModule = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module: serverModule, transport: TransportKind.ipc },
      debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6012'] } },
    };
    const clientOptions: LanguageClientOptions = {
      // Every file the globs match, whatever its language id (a custom glob may match plain `json` files),
      // and the JS/TS sources, for the handler diagnostics, completion and rename of tool names in
      // `registerToolHandler` calls (the server formats configs only, so no second formatter appears).
      documentSelector: [...selectorOf(settings.files), ...SOURCE_SELECTOR],
      synchronize: { configurationSection: SECTION },
      initializationOptions: (): InitializationOptions => ({
        settings: sectionWithToken(plainSection(), settings.server.url, token) as RawSettings,
        trusted,
        storagePath: (this.context.storageUri ?? this.context.globalStorageUri).fsPath,
        // The status bar shows the graph's state: no pop-up for it.
        statusNotification: true,
      }),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        // A document about to switch to `10xgraph-json` is neither sent nor pulled: a pull still
        // running when it closes would make the client skip the pull of the reopened document.
        // Its close still goes out, so the client forgets it (the server ignores the close of a
        // document it never had), and the reopened document is sent and pulled afresh.
        didOpen: (document, next) => (this.isAboutToSwitch(document) ? Promise.resolve() : next(document)),
        provideDiagnostics: (document, previousResultId, cancel, next) => {
          const textDocument = document instanceof vscode.Uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === document.toString()) : document;
          return textDocument !== undefined && this.isAboutToSwitch(textDocument) ? undefined : next(document, previousResultId, cancel);
        },
        workspace: {
          // The server pulls its settings per document. A token in settings.json is never
          // forwarded (nothing says which server it was meant for); the stored token of each
          // answer's own server URL is added, pinned to that URL, and only in a trusted workspace.
          configuration: async (params, cancel, next) => {
            const result = await next(params, cancel);
            if (!Array.isArray(result)) return result;
            const trustedNow = vscode.workspace.isTrusted;
            return Promise.all(
              result.map(async (value: unknown, index) => {
                const item = params.items[index];
                if (item?.section !== SECTION || !isRecord(value)) return value;
                const url = parseSettings(value).server.url;
                return sectionWithToken(value, url, trustedNow ? await this.tokens.tokenFor(url) : undefined);
              }),
            );
          },
        },
      },
    };
    const client = new LanguageClient('10xgraph', '10xgraph Language Server', serverOptions, clientOptions);
    this.client = client;
    client.onNotification(StatusNotification.type, (params) => this.statusEmitter.fire(params));
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped && this.client === client) this.runningEmitter.fire(undefined);
    });
    this.output.appendLine(`[client] starting the language server for ${settings.files.join(', ')} (${trusted ? 'trusted' : 'untrusted: no graph is fetched'})`);
    try {
      await client.start();
      if (this.client === client) this.runningEmitter.fire(client);
    } catch (error) {
      this.output.appendLine(`[client] the language server did not start: ${error instanceof Error ? error.message : String(error)}`);
      if (this.client === client) {
        this.client = undefined;
        this.runningEmitter.fire(undefined);
      }
      void Promise.resolve(client.dispose()).catch(() => undefined);
      void vscode.window
        .showErrorMessage('10xgraph: the language server did not start. See the 10xgraph output for why, then run "10xgraph: Restart Language Server".', 'Show Output')
        .then((choice) => {
          if (choice === 'Show Output') this.output.show(true);
        });
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
