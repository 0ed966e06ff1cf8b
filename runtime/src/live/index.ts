/**
 * The live graph of a running `10xgraph api` (`10xgraph/live`): one fetch of `GET /v1/graph`
 * and `GET /v1/graph/tools`, with a timeout and an optional token, for the editor and the CLI.
 */
export { fetchLiveGraph } from './fetchGraph';
export type { FetchGraphOptions, FetchGraphResult } from './fetchGraph';
