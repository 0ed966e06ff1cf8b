/**
 * The graph routes of `10xgraph api`, the real 10xGraph server's: `/ping`, the graph's
 * description (`/v1/graph`, `/v1/graph:StateSchema`, `/v1/graph/tools`), its runs over invoke
 * (one JSON answer), stream (NDJSON lines) and WebSocket (`/v1/graph/ws`, served by
 * webSocket.ts), and stop and fix of a thread's run. The features this server does not have
 * (a memory store, realtime audio) answer as the Python server answers them when they are not
 * configured (503 "… is not configured"). One declaration each, for the server's route table.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { threadIdText, type FixData, type GraphDescription, type GraphTools, type InvokeData, type StopData } from '10xgraph-client/wire';
import type { WebSocket } from 'ws';
import type { Caller } from './access';
import { ApiError } from './errors';
import { readJsonBody, sendData, sendError } from './http';
import type { ApiLogger } from './log';
import type { Route } from './router';
import type { RunEngine, ServableGraph } from './runEngine';
import { createRunSlots, type SocketLimits } from './sockets';
import { StoreUnavailableError, type ThreadStore } from './store/index';
import { wireMessage } from './stateView';
import { cancelPending, fixThread } from './threadRoutes';
import { checkThreadId, describe, invalid, isObject, parseRunRequest } from './validate';
import { serveRunSocket } from './webSocket';

/** The pattern of the WebSocket route. */
export const WS_PATTERN = '/v1/graph/ws';
/** The pattern of the realtime (audio) WebSocket, which this server does not serve. */
export const LIVE_PATTERN = '/v1/graph/live';

/** What the graph routes need of their server. */
export interface GraphRouteOptions {
  graph: ServableGraph;
  engine: RunEngine;
  store: ThreadStore;
  log: ApiLogger;
  limits: SocketLimits;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** The version reported as `info.version`. */
  version: string;
}

/** The graph routes, in the order the 404 lists them. */
export function createGraphRoutes(options: GraphRouteOptions): Route[] {
  const { graph, engine, store, log, limits, maxBodyBytes, version } = options;
  const httpRunSlots = createRunSlots(limits.maxRunsPerSocket);

  /** A run slot of the request's connection (pipelined requests share one), freed when the answer ends. */
  function takeRunSlot(req: IncomingMessage, res: ServerResponse): void {
    const release = httpRunSlots.take(req.socket);
    if (!release) {
      throw new ApiError(429, 'TOO_MANY_RUNS', `This connection has ${limits.maxRunsPerSocket} runs going (pipelined requests); wait for their answers before sending more.`);
    }
    res.once('close', release);
  }

  const readBody = (req: IncomingMessage) => readJsonBody(req, maxBodyBytes, limits.bodyTimeoutMs);

  /** The thread a stop or fix names: `{thread_id, config?}`. */
  async function readThreadBody(req: IncomingMessage): Promise<string> {
    const body = await readBody(req);
    if (!isObject(body)) throw invalid(`The request body must be a JSON object {"thread_id": "..."}; got ${describe(body)}.`, []);
    const id = threadIdText(body.thread_id);
    if (id === undefined || id === null || id === '') throw invalid("Field 'thread_id' is required: the thread to act on.", ['thread_id']);
    if (body.config !== undefined && body.config !== null && !isObject(body.config)) throw invalid(`Field 'config' must be an object; got ${describe(body.config)}.`, ['config']);
    return checkThreadId(id, "Field 'thread_id'", ['thread_id']);
  }

  /**
   * Refuses (403) a caller the thread `threadId` does not belong to (a thread nobody stored is
   * anyone's); returns the owner it was checked against (null: none), undefined without authentication.
   */
  async function authorizeThread(caller: Caller, threadId: string): Promise<string | null | undefined> {
    if (!caller.access.enabled) return undefined;
    let owner: string | undefined;
    try {
      owner = await store.userOf(threadId);
    } catch (error) {
      throw error instanceof StoreUnavailableError ? new ApiError(503, 'TRANSIENT_STORAGE_ERROR', error.message) : error;
    }
    await caller.authorize(threadId, owner);
    return owner ?? null;
  }

  const notConfigured = (what: string) => () => {
    throw new ApiError(503, 'HTTPException', `${what} is not configured: 10xgraph api keeps threads only (see the README's table of routes).`);
  };

  return [
    { method: 'GET', pattern: '/ping', public: true, handle: ({ res, requestId }) => sendData(res, requestId, 'pong', 'The server is up.') },
    { method: 'GET', pattern: '/v1/graph', scope: 'graph:read', handle: ({ res, requestId }) => sendGraph(res, requestId, graph, version, store) },
    {
      method: 'GET',
      pattern: '/v1/graph:StateSchema',
      scope: 'graph:read',
      handle: ({ res, requestId }) => sendData(res, requestId, STATE_SCHEMA, 'The JSON Schema of the graph state.'),
    },
    { method: 'GET', pattern: '/v1/graph/tools', scope: 'graph:read', handle: ({ res, requestId }) => sendTools(res, requestId, graph) },
    {
      method: 'POST',
      pattern: '/v1/graph/invoke',
      body: true,
      scope: 'graph:invoke',
      thread: 'body',
      async handle({ req, res, requestId, caller }) {
        takeRunSlot(req, res);
        const request = parseRunRequest(await readBody(req));
        // The id of a new thread is first shown in this answer, after the commit: nobody can name it before.
        const prepared = await engine.prepare(request, caller, true);
        const full = request.granularity === 'full';
        const outcome = await engine.execute(prepared, undefined, { deltas: false, state: full });
        if (outcome.error) return sendError(res, requestId, new ApiError(outcome.error.status, outcome.error.code, outcome.error.message));
        const state = full ? (outcome.state ?? null) : null;
        const data: InvokeData = {
          messages: outcome.messages.map(wireMessage),
          state,
          context: state ? state.context : null,
          summary: state ? state.context_summary : null,
          meta: outcome.meta,
        };
        const message =
          outcome.status === 'waiting' ? `The run waits for ${outcome.pending.length} remote tool call${outcome.pending.length === 1 ? '' : 's'}.` : 'The run completed.';
        sendData(res, requestId, data, message);
      },
    },
    {
      method: 'POST',
      pattern: '/v1/graph/stream',
      body: true,
      scope: 'graph:stream',
      thread: 'body',
      async handle({ req, res, requestId, caller }) {
        takeRunSlot(req, res);
        const prepared = await engine.prepare(parseRunRequest(await readBody(req)), caller);
        // NDJSON lines under the type the real server gives them (which also keeps proxies from buffering).
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
          'x-request-id': requestId,
        });
        let dropped = false;
        // A client that goes away does not stop the run: the thread is still saved consistently.
        await engine.execute(
          prepared,
          (chunk) => {
            if (dropped || res.destroyed || res.writableEnded) return;
            // A client that stops reading is dropped rather than buffered for without bound.
            if (res.writableLength > limits.maxBufferedBytes) {
              dropped = true;
              log.warn(`Dropped the stream of request ${requestId}: ${res.writableLength} bytes wait for a client that does not read.`, {
                event: 'stream_dropped',
                request_id: requestId,
              });
              res.destroy();
              return;
            }
            res.write(JSON.stringify(chunk) + '\n');
          },
          { deltas: true },
        );
        if (!res.writableEnded) res.end();
      },
    },
    {
      method: 'POST',
      pattern: '/v1/graph/stop',
      body: true,
      scope: 'graph:stop',
      thread: 'body',
      async handle({ req, res, requestId, caller }) {
        const threadId = await readThreadBody(req);
        // Only a run on the thread the caller was checked against: not one another user started since.
        const owner = await authorizeThread(caller, threadId);
        if (engine.stop(threadId, owner)) return sendData(res, requestId, { ok: true, running: true } satisfies StopData, `The run on thread '${threadId}' is stopping.`);
        const cancelled = await cancelPending(store, threadId, caller, () => engine.refuseWhileClosing());
        if (cancelled === undefined) return sendData(res, requestId, { ok: false, running: false, reason: 'no-state' } satisfies StopData, `No thread '${threadId}'.`);
        if (cancelled === 'busy') {
          return sendData(
            res,
            requestId,
            { ok: false, running: true, reason: 'running-elsewhere' } satisfies StopData,
            `Another server process runs thread '${threadId}'; stop it there.`,
          );
        }
        sendData(
          res,
          requestId,
          { ok: true, running: false, reason: 'not-running' } satisfies StopData,
          cancelled.length > 0
            ? `Nothing ran on thread '${threadId}'; its ${cancelled.length} pending remote call${cancelled.length === 1 ? ' was' : 's were'} cancelled.`
            : `Nothing ran on thread '${threadId}'.`,
        );
      },
    },
    {
      method: 'POST',
      pattern: '/v1/graph/fix',
      body: true,
      scope: 'graph:fix',
      thread: 'body',
      async handle({ req, res, requestId, caller }) {
        const threadId = await readThreadBody(req);
        const data: FixData = await fixThread(store, threadId, caller, () => engine.refuseWhileClosing());
        sendData(res, requestId, data, data.message);
      },
    },
    {
      // Gone from the Python server too: a client that still calls it learns where the tools go.
      method: 'POST',
      pattern: '/v1/graph/setup',
      body: true,
      scope: 'graph:setup',
      handle() {
        throw new ApiError(404, 'NOT_FOUND', "There is no /v1/graph/setup: remote tools are declared in 10xgraph.json's remote_tools, which the server reads when it starts.");
      },
    },
    {
      method: 'GET',
      pattern: WS_PATTERN,
      scope: 'graph:stream',
      handle() {
        throw new ApiError(426, 'UPGRADE_REQUIRED', `${WS_PATTERN} is a WebSocket endpoint; open it with a WebSocket client.`);
      },
      upgrade: (ws, socket) => serveRunSocket(ws, { engine, limits, log, route: WS_PATTERN, ...socket }),
    },
    {
      method: 'GET',
      pattern: LIVE_PATTERN,
      scope: 'graph:stream',
      handle() {
        throw new ApiError(426, 'UPGRADE_REQUIRED', `${LIVE_PATTERN} is a WebSocket endpoint; open it with a WebSocket client.`);
      },
      upgrade: refuseLive,
    },
    { method: 'POST', pattern: '/v1/store/memories', body: true, scope: 'store:write', handle: notConfigured('Store') },
    { method: 'POST', pattern: '/v1/store/search', body: true, scope: 'store:read', handle: notConfigured('Store') },
    { method: 'POST', pattern: '/v1/store/memories/list', body: true, scope: 'store:read', handle: notConfigured('Store') },
    { method: 'POST', pattern: '/v1/store/memories/forget', body: true, scope: 'store:delete', handle: notConfigured('Store') },
    { method: 'POST', pattern: '/v1/store/memories/{item_id}', body: true, scope: 'store:read', handle: notConfigured('Store') },
    { method: 'PUT', pattern: '/v1/store/memories/{item_id}', body: true, scope: 'store:write', handle: notConfigured('Store') },
    { method: 'DELETE', pattern: '/v1/store/memories/{item_id}', body: true, scope: 'store:delete', handle: notConfigured('Store') },
    { method: 'POST', pattern: '/v1/files/upload', body: true, scope: 'files:upload', handle: notConfigured('File upload') },
    { method: 'GET', pattern: '/v1/files/{item_id}', scope: 'files:read', handle: notConfigured('File upload') },
    { method: 'GET', pattern: '/v1/files/{item_id}/info', scope: 'files:read', handle: notConfigured('File upload') },
    { method: 'GET', pattern: '/v1/files/{item_id}/url', scope: 'files:read', handle: notConfigured('File upload') },
    { method: 'GET', pattern: '/v1/config/multimodal', scope: 'config:read', handle: notConfigured('File upload') },
  ];
}

/** The realtime socket on a graph that is not a live agent: the real server's `not_live` event, then close 1008. */
function refuseLive(ws: WebSocket): void {
  ws.on('error', () => {});
  ws.send(
    JSON.stringify({
      type: 'error',
      code: 'not_live',
      message: 'This graph is not a live (realtime) agent; 10xgraph api serves no realtime audio. Use /v1/graph/ws or /v1/graph/stream.',
      fatal: true,
    }),
  );
  ws.close(1008, 'not_live');
}

/**
 * The state every graph of this library keeps, as `GET /v1/graph:StateSchema` gives it: the
 * real server's `AgentState` fields (a JSON Schema, as pydantic writes one).
 */
const STATE_SCHEMA = {
  title: 'AgentState',
  type: 'object',
  description: "A thread's state: its messages (context), a summary of earlier ones, where the graph stands, and the graph's other values.",
  properties: {
    context: { title: 'Context', type: 'array', items: { type: 'object' }, description: 'The messages of the thread, oldest first.' },
    context_summary: { title: 'Context Summary', anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
    execution_meta: {
      title: 'Execution Meta',
      type: 'object',
      properties: {
        current_node: { type: 'string' },
        step: { type: 'integer' },
        status: { type: 'string', enum: ['running', 'interrupted_before', 'interrupted_after', 'completed', 'error'] },
        interrupted_node: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        interrupt_reason: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        interrupt_data: { anyOf: [{ type: 'object' }, { type: 'null' }] },
        thread_id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        stop_current_execution: { type: 'string', enum: ['none', 'stop_requested', 'stopped'] },
        internal_data: { type: 'object' },
      },
    },
  },
  additionalProperties: true,
} as const;

function sendGraph(res: ServerResponse, requestId: string, graph: ServableGraph, version: string, store: ThreadStore): void {
  const description = graph.describe();
  const nodes = description.nodes.map((node) => ({ id: node.name, name: node.name, type: node.kind }));
  const edges = description.edges.map((edge) => ({ id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, conditional: edge.conditional }));
  sendData(
    res,
    requestId,
    {
      info: {
        node_count: nodes.length,
        edge_count: edges.length,
        is_realtime: false,
        checkpointer: true,
        checkpointer_type: store.kind === 'postgres' ? 'PostgresThreadStore' : 'SqliteThreadStore',
        publisher: false,
        store: false,
        interrupt_before: [],
        interrupt_after: [],
        context_type: null,
        id_generator: null,
        id_type: 'string',
        state_type: 'AgentState',
        state_fields: ['context', 'context_summary', 'execution_meta'],
        name: description.name,
        version,
        entry_point: description.entryPoint,
      },
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
