/**
 * The graph routes of `10xgraph api`: `/ping`, the graph's description (`/v1/graph`,
 * `/v1/graph/tools`) and its runs over invoke (one JSON answer), stream (NDJSON chunks) and
 * WebSocket (`/v1/graph/ws`, served by webSocket.ts). One declaration each, for the server's
 * route table.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphDescription, GraphTools } from '10xgraph-client/wire';
import { ApiError, statusForRunError } from './errors';
import { readJsonBody, sendData, sendError } from './http';
import type { ApiLogger } from './log';
import type { Route } from './router';
import type { RunEngine, ServableGraph } from './runEngine';
import { createRunSlots, type SocketLimits } from './sockets';
import { parseRunRequest } from './validate';
import { serveRunSocket } from './webSocket';

/** The pattern of the WebSocket route. */
export const WS_PATTERN = '/v1/graph/ws';

/** What the graph routes need of their server. */
export interface GraphRouteOptions {
  graph: ServableGraph;
  engine: RunEngine;
  log: ApiLogger;
  limits: SocketLimits;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** The version reported as `info.version`. */
  version: string;
}

/** The graph routes, in the order the 404 lists them. */
export function createGraphRoutes(options: GraphRouteOptions): Route[] {
  const { graph, engine, log, limits, maxBodyBytes, version } = options;
  const httpRunSlots = createRunSlots(limits.maxRunsPerSocket);

  /** A run slot of the request's connection (pipelined requests share one), freed when the answer ends. */
  function takeRunSlot(req: IncomingMessage, res: ServerResponse): void {
    const release = httpRunSlots.take(req.socket);
    if (!release) {
      throw new ApiError(429, 'too_many_runs', `This connection has ${limits.maxRunsPerSocket} runs going (pipelined requests); wait for their answers before sending more.`);
    }
    res.once('close', release);
  }

  async function readRunRequest(req: IncomingMessage) {
    return parseRunRequest(await readJsonBody(req, maxBodyBytes, limits.bodyTimeoutMs));
  }

  return [
    { method: 'GET', pattern: '/ping', public: true, handle: ({ res, requestId }) => sendData(res, requestId, 'pong', 'The server is up.') },
    { method: 'GET', pattern: '/v1/graph', handle: ({ res, requestId }) => sendGraph(res, requestId, graph, version) },
    { method: 'GET', pattern: '/v1/graph/tools', handle: ({ res, requestId }) => sendTools(res, requestId, graph) },
    {
      method: 'POST',
      pattern: '/v1/graph/invoke',
      body: true,
      async handle({ req, res, requestId }) {
        takeRunSlot(req, res);
        // The id of a new thread is first shown in this answer, after the commit: nobody can name it before.
        const prepared = await engine.prepare(await readRunRequest(req), true);
        const outcome = await engine.execute(prepared, () => {});
        if (outcome.error) return sendError(res, requestId, new ApiError(statusForRunError(outcome.error.code), outcome.error.code, outcome.error.message));
        const message =
          outcome.status === 'waiting' ? `The run waits for ${outcome.pending.length} remote tool call${outcome.pending.length === 1 ? '' : 's'}.` : 'The run completed.';
        sendData(res, requestId, { thread_id: prepared.threadId, status: outcome.status, messages: outcome.messages, pending_remote_calls: outcome.pending }, message);
      },
    },
    {
      method: 'POST',
      pattern: '/v1/graph/stream',
      body: true,
      async handle({ req, res, requestId }) {
        takeRunSlot(req, res);
        const prepared = await engine.prepare(await readRunRequest(req));
        res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId });
        // A client that goes away does not stop the run: the thread is still saved consistently.
        await engine.execute(prepared, (chunk) => {
          if (res.destroyed || res.writableEnded) return;
          // A client that stops reading is dropped rather than buffered for without bound.
          if (res.writableLength > limits.maxBufferedBytes) {
            log.warn(`Dropped the stream of request ${requestId}: ${res.writableLength} bytes wait for a client that does not read.`, {
              event: 'stream_dropped',
              request_id: requestId,
            });
            res.destroy();
            return;
          }
          // The end chunk ends the body in the same write: a body whose last bytes came apart from it is
          // reported by browsers as aborted even when read to its end.
          if (chunk.event === 'end') res.end(JSON.stringify(chunk) + '\n');
          else res.write(JSON.stringify(chunk) + '\n');
        });
        if (!res.writableEnded) res.end();
      },
    },
    {
      method: 'GET',
      pattern: WS_PATTERN,
      handle() {
        throw new ApiError(426, 'upgrade_required', `${WS_PATTERN} is a WebSocket endpoint; open it with a WebSocket client.`);
      },
      upgrade: (ws) => serveRunSocket(ws, { engine, limits, log, route: WS_PATTERN }),
    },
  ];
}

function sendGraph(res: ServerResponse, requestId: string, graph: ServableGraph, version: string): void {
  const description = graph.describe();
  const nodes = description.nodes.map((node) => ({ id: node.name, name: node.name, type: node.kind }));
  const edges = description.edges.map((edge) => ({ id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, conditional: edge.conditional }));
  sendData(
    res,
    requestId,
    {
      info: { name: description.name, version, node_count: nodes.length, edge_count: edges.length, entry_point: description.entryPoint },
      nodes,
      edges,
    } satisfies GraphDescription,
    `Graph '${description.name}' with ${nodes.length} nodes and ${edges.length} edges.`,
  );
}

function sendTools(res: ServerResponse, requestId: string, graph: ServableGraph): void {
  const nodes = graph
    .describe()
    .nodes.filter((node) => node.kind === 'tool_node')
    .map((node) => {
      const tools = (node.tools ?? []).map(({ name, description, parameters, source }) => ({ name, description, parameters, source }));
      return { node_name: node.name, tool_count: tools.length, tools };
    });
  const toolCount = nodes.reduce((sum, node) => sum + node.tool_count, 0);
  sendData(res, requestId, { node_count: nodes.length, tool_count: toolCount, nodes } satisfies GraphTools, `${toolCount} tools on ${nodes.length} ToolNodes.`);
}
