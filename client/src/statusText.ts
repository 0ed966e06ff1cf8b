/**
 * What the status bar says for each live-graph state. Pure (no `vscode` import), so the words
 * people read are decided in one place.
 */
import type { StatusParams } from '../../common/protocol';

/** What a click on the status item does. */
export type StatusAction = 'refresh' | 'settings';

/** The status bar item's content for one state. */
export interface StatusView {
  /** The item text, with a codicon. */
  text: string;
  /** Markdown for the tooltip. */
  tooltip: string;
  action: StatusAction;
  /** Warning colours for offline and version mismatch, none otherwise. */
  severity: 'none' | 'warning';
}

/** The state before the language server has said anything. */
export const STARTING_VIEW: StatusView = {
  text: '$(sync~spin) 10xgraph',
  tooltip: '**10xgraph**: starting the language server…',
  action: 'settings',
  severity: 'none',
};

/** The sentence saying that node names are judged on the graph read from the agent module's source, if they are. */
function fromSource(status: StatusParams): string {
  const source = status.sourceGraph;
  if (!source) return '';
  return `\n\nMeanwhile node names are checked against the graph read from ${escapeMarkdown(source.file)} (${source.nodeCount} node${source.nodeCount === 1 ? '' : 's'}; its source is read, never run).`;
}

/** Turns a `10xgraph/status` payload into the status bar's text and tooltip at time `now`. */
export function describeStatus(status: StatusParams, now: number): StatusView {
  const view = describeGraphState(status, now);
  // The graph read from the agent module judges node names meanwhile: the item says which file.
  return status.sourceGraph && status.state !== 'connected' ? { ...view, text: `${view.text} · ${status.sourceGraph.file}` } : view;
}

function describeGraphState(status: StatusParams, now: number): StatusView {
  const url = status.url;
  const age = ageOf(status.fetchedAt, now);
  const mismatch =
    status.versionMismatch === true
      ? `\n\n$(warning) The server runs 10xgraph ${status.version ?? '(unknown version)'}, which differs from the rule set of this extension: the server may judge the file differently.`
      : '';
  switch (status.state) {
    case 'connected': {
      const count = status.nodeCount ?? 0;
      const nodes = `${count} node${count === 1 ? '' : 's'}`;
      return {
        text: `${status.versionMismatch === true ? '$(warning)' : '$(type-hierarchy)'} 10xgraph: ${nodes}`,
        tooltip:
          `**10xgraph**: connected to ${escapeMarkdown(url)}: ${nodes}` +
          (age !== undefined ? `, fetched ${age}` : '') +
          (status.version !== undefined ? ` (10xgraph ${escapeMarkdown(status.version)})` : '') +
          '.\n\nNode names in `remote_tools` are checked against this live graph.' +
          mismatch +
          '\n\nClick to refetch the graph.',
        action: 'refresh',
        severity: status.versionMismatch === true ? 'warning' : 'none',
      };
    }
    case 'offline': {
      // The server's sentence already says why and what is checked meanwhile; add only what it may not.
      const why =
        (status.error !== undefined && status.error !== '' ? `${escapeMarkdown(status.error)}` : 'The server did not answer: node names are not checked.') + fromSource(status);
      return {
        text: '$(debug-disconnect) 10xgraph: offline',
        tooltip: `**10xgraph**: the live graph of ${escapeMarkdown(url)} is offline.\n\n${why}${mismatch}\n\nStart the server (\`10xgraph api\`) or change \`10xgraph.server.url\`, then click to retry.`,
        action: 'refresh',
        severity: 'warning',
      };
    }
    case 'disabled':
      return {
        text: '$(circle-slash) 10xgraph: graph off',
        tooltip: `**10xgraph**: live graph checks are off (\`10xgraph.server.enabled\`). The file is checked without a live graph: ${status.sourceGraph ? 'see below.' : 'node names are not checked.'}${fromSource(status)}\n\nClick to open the settings.`,
        action: 'settings',
        severity: 'none',
      };
    case 'untrusted':
      return {
        text: '$(shield) 10xgraph: untrusted',
        tooltip: `**10xgraph**: this workspace is not trusted, so no server is contacted and no graph is fetched${status.sourceGraph ? '' : ': node names are not checked'}. The rest of the rules still run.${fromSource(status)}\n\n[Manage Workspace Trust](command:workbench.trust.manage) to check against the live graph. Click to open the settings.`,
        action: 'settings',
        severity: 'none',
      };
    default:
      // A state this version does not know: show it as is, and offer the settings.
      return { text: '$(question) 10xgraph', tooltip: `**10xgraph**: ${escapeMarkdown(String(status.state))}`, action: 'settings', severity: 'none' };
  }
}

/** "12 s ago", "3 min ago", "2 h ago"; undefined when the time is unknown. */
export function ageOf(fetchedAt: number | string | undefined, now: number): string | undefined {
  if (fetchedAt === undefined) return undefined;
  const at = typeof fetchedAt === 'number' ? fetchedAt : Date.parse(fetchedAt);
  if (!Number.isFinite(at)) return undefined;
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return seconds <= 1 ? 'just now' : `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>]/g, (c) => `\\${c}`);
}
