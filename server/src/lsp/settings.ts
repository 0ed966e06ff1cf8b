/**
 * Settings and trust: the `10xgraph` section per scope (a document or folder URI), asked of the
 * client once and cached until it changes; the initialization options as the fallback; whether
 * the workspace is trusted; the workspace folders; which documents are served.
 */
import { type Connection, type InitializeParams, MessageType, ShowMessageNotification } from 'vscode-languageserver';
import { DEFAULT_SETTINGS, parseSettings, sectionFromInitializationOptions, type Settings, trustedFromInitializationOptions, withEnvironmentToken } from '../../../common/settings';
import { matchAny } from '10xgraph/workspace';
import type { WantedGraph } from '../liveGraph';
import { matchPathsOf } from '../paths';
import { type Logger, plainMessage } from './logger';

// A client that declares `workspace/configuration` but never answers must not hang validation.
const CONFIGURATION_TIMEOUT_MS = 5000;

/** The settings of one server. */
export class SettingsStore {
  /** The workspace folders (URIs). */
  folders: string[] = [];
  /** The settings of the initialization options (with `TENXGRAPH_TOKEN`), what pushed settings fall back on. */
  private initial: Settings = DEFAULT_SETTINGS;
  /** What a scope gets when the client is not asked or does not answer. */
  fallback: Settings = DEFAULT_SETTINGS;
  private trusted = true;
  private configurationSupport = false;
  /** Counts changes of settings or trust: a document's diagnostics depend on it. */
  epoch = 0;
  private readonly cache = new Map<string, Promise<Settings>>();
  private readonly invalidGlobs = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly logger: Logger,
    /** Settings, trust or folders changed. */
    private readonly changed: () => void,
  ) {}

  /** Reads the folders, the initialization options and trust from `initialize`. */
  initialize(params: InitializeParams, configurationSupport: boolean, environmentToken: string | undefined): void {
    this.configurationSupport = configurationSupport;
    this.folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    const options: unknown = params.initializationOptions;
    this.initial = withEnvironmentToken(parseSettings(sectionFromInitializationOptions(options)), environmentToken);
    this.fallback = this.initial;
    this.trusted = trustedFromInitializationOptions(options);
  }

  /** The settings of a scope (a document or folder URI), asked once and cached until they change. */
  settingsFor(scopeUri: string): Promise<Settings> {
    let settings = this.cache.get(scopeUri);
    if (!settings) {
      settings = this.fetchSettings(scopeUri);
      this.cache.set(scopeUri, settings);
    }
    return settings;
  }

  private async fetchSettings(scopeUri: string): Promise<Settings> {
    if (!this.configurationSupport) return this.fallback;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const raw: unknown = await Promise.race([
        this.connection.workspace.getConfiguration({ scopeUri, section: '10xgraph' }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer to workspace/configuration within ${CONFIGURATION_TIMEOUT_MS} ms`)), CONFIGURATION_TIMEOUT_MS);
        }),
      ]);
      return raw === null || raw === undefined ? this.fallback : parseSettings(raw, this.fallback);
    } catch (error) {
      this.logger.log(`10xgraph: settings of ${scopeUri} not read (${error instanceof Error ? error.message : String(error)}); using the initialization options.`);
      return this.fallback;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Applies `workspace/didChangeConfiguration`. */
  configurationChanged(settings: unknown): void {
    // Clients that push settings (instead of answering workspace/configuration) send the section here.
    // A client that answers workspace/configuration is asked again per scope instead: what it pushes
    // is the window's section, whose URL and token may come from different settings files.
    if (!this.configurationSupport && settings && typeof settings === 'object' && '10xgraph' in settings) {
      this.fallback = parseSettings((settings as Record<string, unknown>)['10xgraph'], this.initial);
    }
    this.settingsChanged();
  }

  /** Applies the client's word on workspace trust. */
  trustChanged(trusted: boolean): void {
    if (trusted === this.trusted) return;
    this.trusted = trusted;
    this.settingsChanged();
  }

  /** Applies `workspace/didChangeWorkspaceFolders`. */
  foldersChanged(added: readonly string[], removed: readonly string[]): void {
    const gone = new Set(removed);
    this.folders = [...this.folders.filter((f) => !gone.has(f)), ...added];
    this.settingsChanged();
  }

  /** A document closed: its settings are asked again when it opens again. */
  forget(uri: string): void {
    this.cache.delete(uri);
  }

  private settingsChanged(): void {
    this.cache.clear();
    this.epoch++;
    this.changed();
  }

  /** Whether the server checks `uri` (its path matches a glob of `10xgraph.files`). */
  isServed(uri: string, settings: Settings): boolean {
    return matchAny(settings.files, matchPathsOf(uri, this.folders), (glob, reason) => this.reportInvalidGlob(glob, reason));
  }

  /** Which graph a scope with `settings` is checked against. */
  modeOf(settings: Settings): WantedGraph['mode'] {
    if (!settings.server.enabled) return 'disabled';
    return this.trusted ? 'live' : 'untrusted';
  }

  /** Says once per glob (not per file) that a `10xgraph.files` glob is ignored, and why. */
  private reportInvalidGlob(glob: string, reason: string): void {
    if (this.invalidGlobs.has(glob)) return;
    this.invalidGlobs.add(glob);
    const shown = glob.length > 80 ? `${glob.slice(0, 80)}…` : glob;
    const message = plainMessage(`10xgraph.files: the glob "${shown}" is ignored: ${reason}. The other globs still apply; correct it in your settings.`);
    this.logger.log(message);
    // A notification, not a request: nothing waits for the person to answer.
    void this.connection
      .sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message })
      .catch((e: unknown) => this.logger.logError('window/showMessage', e));
  }
}
