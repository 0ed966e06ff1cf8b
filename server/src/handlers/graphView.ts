/**
 * `10xgraph/graphView`: what the graph view draws for a document (or a folder): the graph and
 * status its diagnostics use, and its remote tools with the verdicts of the analysis its
 * diagnostics came from.
 */
import type { Connection } from 'vscode-languageserver';
import { declaredToolsOf } from '10xgraph/rules';
import { GraphViewRequest, type GraphViewResult, type StatusParams } from '../../../common/protocol';
import type { ServerContext } from '../lsp/context';

/** Registers the graph-view request. */
export function register(connection: Connection, context: ServerContext): void {
  const { settings: store, live: graphs } = context;
  connection.onRequest(
    GraphViewRequest.type,
    context.guard('graphView', null as GraphViewResult | null, async (params) => {
      const uri = typeof params?.uri === 'string' ? params.uri : store.folders[0];
      const state = uri !== undefined ? await context.states.checkedStateOf(uri) : undefined;
      // Without a checked document: the graph of the folder's settings (or the initialization options').
      const settings = state?.settings ?? (uri !== undefined ? await store.settingsFor(uri) : store.fallback);
      const live = state ? state.live : await graphs.clientFor(settings);
      const status: StatusParams | undefined = graphs.statusOf(settings, live);
      if (!status) throw new Error(`no live graph for ${settings.server.url}`);
      const graph = state ? state.facts.graph : live?.graph();
      const tools = state ? declaredToolsOf(state.analysis, graph !== undefined) : undefined;
      return { status, ...(graph ? { graph } : {}), ...(tools ? { tools } : {}) };
    }),
  );
}
