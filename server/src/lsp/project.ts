/**
 * The project on the server's side: the index of the workspace's sources and configs
 * (`ProjectService`), fed with the workspace folders and their settings, giving way to typing,
 * and offered to the language service as its `ProjectFeatures`.
 */
import { fileURLToPath } from 'node:url';
import type { Connection, Diagnostic, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { configSummaryOf } from '10xgraph/rules';
import { configFactsOf } from '../configFacts';
import { type AgentSource, graphNotReadDiagnostic } from '../project';
import { type ConfigView, ProjectService } from '../projectService';
import type { CheckedConfig, ProjectFeatures } from '../service';
import type { Logger } from './logger';
import { flatToolNames } from './configNames';
import type { SettingsStore } from './settings';

// After an edit, the project index waits this long before its next file.
const GIVE_WAY_MS = 10;
// The first file of the first index waits at most this long for the diagnostics under way.
const FIRST_DIAGNOSTICS_WAIT_MS = 1000;

/** What the project needs of the server around it. */
export interface ServerProjectHost {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  settings: SettingsStore;
  logger: Logger;
  now: () => number;
  /** The project changed: diagnostics of open documents may change. */
  changed: () => void;
  /** Resolves when no document is being validated. */
  diagnosticsSettled: () => Promise<void>;
  /** The agent module read from its source when no graph could be read from it exactly, for a config the server checked. */
  unreadSourceOf: (config: CheckedConfig) => AgentSource | undefined;
}

/** The project of one server. */
export class ServerProject {
  readonly service: ProjectService;
  /** What the language service asks of the project. */
  readonly features: ProjectFeatures;
  /** When a document last changed: the project index gives way to typing. */
  private lastEdit = 0;
  /** Whether the index has read a file yet. */
  private reading = false;

  constructor(private readonly host: ServerProjectHost) {
    const service = (this.service = new ProjectService({
      connection: host.connection,
      documents: host.documents,
      log: (m) => host.logger.log(m),
      changed: () => host.changed(),
      pause: () => this.giveWay(),
    }));
    // A request right after an edit sees this version's declarations in the project too (exact ranges for a rename).
    const seen = (view: ConfigView | undefined) => {
      if (view) service.configChanged(view);
      return view;
    };
    // A pulled report asks for a config's project diagnostics twice (its result id, then its items): they
    // are computed once per checked version, project snapshot and unread agent module.
    const computed = new WeakMap<CheckedConfig, { generation: number; moduleReads: number; unread: AgentSource | undefined; diagnostics: Diagnostic[] }>();
    this.features = {
      configDiagnostics(config) {
        const flat = config.analysis.flatTree;
        if (!flat) return [];
        const generation = service.snapshot().generation;
        const moduleReads = service.moduleReads;
        const unread = host.unreadSourceOf(config);
        const known = computed.get(config);
        if (known?.generation === generation && known.moduleReads === moduleReads && known.unread === unread) return known.diagnostics;
        const diagnostics = [
          // The rule judges whether the reason is worth telling; the config's ranges are built only when there is a reason.
          ...(unread ? graphNotReadDiagnostic(config.config(), unread) : []),
          ...service.importDiagnostics(config.uri, config.config(), config.version),
          ...service.configDiagnostics(
            config.uri,
            (only) => (only ? configFactsOf(configSummaryOf(flat, only)!, config.lines) : config.config()),
            () => flatToolNames(flat),
          ),
        ];
        computed.set(config, { generation, moduleReads, unread, diagnostics });
        return diagnostics;
      },
      definition: (uri, position, view) => service.definition(uri, position, seen(view)),
      references: (uri, position, view, includeDeclaration) => service.references(uri, position, seen(view), includeDeclaration),
      prepareRename: (uri, position, view) => service.prepareRename(uri, position, seen(view)),
      rename: (uri, position, view, newName) => service.rename(uri, position, seen(view), newName),
      codeLenses: (view) => service.codeLenses(seen(view)!),
      documentLinks: (view) => service.documentLinks(seen(view)!),
      completion: (uri, position) => service.completion(uri, position),
    };
  }

  /** A document changed. */
  edited(uri: string): void {
    this.lastEdit = this.host.now();
    if (this.service.isSource(uri)) this.service.sourceChanged(uri);
    else if (this.service.isPythonModule(uri)) this.service.pythonChanged(uri);
  }

  /**
   * Resolves when the project index may read its next file: at once (next turn of the event loop)
   * unless a document changed in the last few milliseconds, then once that many have passed, so
   * that the diagnostics of the next keystroke rarely wait behind a parse. One wait per file at most:
   * typing slows the index, never stops it. Before its very first file, the index waits for the
   * diagnostics under way (the first diagnostics of the configs just opened), a second at most.
   */
  private giveWay(): Promise<void> {
    if (!this.reading) {
      // The first file (and the parser it loads) waits for the diagnostics of the documents just opened.
      this.reading = true;
      // A turn of the event loop first, so that a didOpen already received has started its validation.
      const settled = new Promise((resolve) => setImmediate(resolve)).then(() => this.host.diagnosticsSettled());
      return Promise.race([settled, new Promise<void>((resolve) => setTimeout(resolve, FIRST_DIAGNOSTICS_WAIT_MS).unref())]);
    }
    const since = this.host.now() - this.lastEdit;
    if (since >= GIVE_WAY_MS || since < 0) return new Promise((resolve) => setImmediate(resolve));
    return new Promise((resolve) => setTimeout(resolve, GIVE_WAY_MS - since));
  }

  /** Indexes the workspace folders with their settings (again when they changed). */
  async index(): Promise<void> {
    const roots = [];
    for (const folder of this.host.settings.folders) {
      if (!folder.startsWith('file:')) continue;
      const settings = await this.host.settings.settingsFor(folder);
      roots.push({ path: fileURLToPath(folder), files: settings.files, exclude: settings.project.exclude });
    }
    this.service.setRoots(roots);
  }
}
