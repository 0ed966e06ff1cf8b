/**
 * The commands the 10xgraph language server registers, apart from the protocol's message types
 * (`protocol.ts` re-exports them) so that the language service can name them without loading
 * the JSON-RPC library.
 */

/**
 * `10xgraph.refreshGraph`: a `workspace/executeCommand` the server registers. It refetches
 * the live graph now. Arguments are optional: a document URI (refetch the graph that document
 * is checked against) or none (refetch every graph in use). Resolves to the statuses after
 * the fetch. The VS Code language client turns it into a command on its own; the extension
 * must not register the same id again.
 */
export namespace RefreshGraphCommand {
  export const command = '10xgraph.refreshGraph';
}
