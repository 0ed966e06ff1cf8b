/**
 * A loopback server answering docs/spec.md §3 (`/ping`, `/v1/graph`, `/v1/graph/tools`) from a graph
 * description, in the envelopes of the real 10xGraph server (`{data, metadata}`, errors
 * `{error: {code, message, details}, metadata}`), which can be stopped and started again on the
 * same port, and made hostile (slow, failing, unauthorised, malformed, huge, redirecting). It
 * counts requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeTool {
  name: string;
  description?: string;
  /** `mcp`: a tool of an MCP server the Python server is connected to. */
  source: 'local' | 'remote' | 'mcp';
}

export interface FakeNode {
  name: string;
  type?: 'tool_node' | 'model_node' | 'function_node';
  tools?: FakeTool[];
}

export interface FakeGraph {
  nodes: FakeNode[];
  edges?: Array<{ source: string; target: string }>;
  version?: string;
  /** false: an older server, with no `/v1/graph/tools` (404 as FastAPI answers it). */
  toolsRoute?: boolean;
}

export type Hostility =
  | { kind: 'none' }
  | { kind: 'slow'; ms: number }
  | { kind: 'status'; status: number }
  | { kind: 'malformed' }
  | { kind: 'huge'; bytes: number }
  | { kind: 'redirect'; to: string }
  /** An error `status` whose reason phrase (`HTTP/1.1 500 <reason>`) is `reason`, sent as Latin-1 bytes. */
  | { kind: 'reason'; status: number; reason: string }
  /** `body` as the answer to `path` (200, JSON); the other paths answer as usual. */
  | { kind: 'body'; path: string; body: string };

/** A graph server under a test's control. */
export class GraphHttpServer {
  readonly requests: Array<{ path: string; authorization?: string }> = [];
  hostility: Hostility = { kind: 'none' };
  /** Called on each request before it is answered (a test's way to act while a client waits). */
  onRequest?: (path: string) => void;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  port = 0;

  constructor(public graph: FakeGraph) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Graph requests so far (the fetcher asks `/v1/graph` and `/v1/graph/tools` per fetch). */
  get graphRequests(): number {
    return this.requests.filter((r) => r.path === '/v1/graph').length;
  }

  /** Listens on 127.0.0.1 (the same port as before after a `stop`). */
  async start(): Promise<this> {
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes the listener and every open connection. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ path, authorization: req.headers.authorization });
    this.onRequest?.(path);
    const h = this.hostility;
    switch (h.kind) {
      case 'slow': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.answer(path, res);
        }, h.ms);
        this.timers.add(timer);
        return;
      }
      case 'status':
        return send(res, h.status, errorEnvelope(h.status === 401 ? 'INVALID_TOKEN' : 'HTTPException', 'failed on purpose'));
      case 'reason':
        res.writeHead(h.status, h.reason, { 'content-type': 'text/plain' });
        return void res.end();
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"data": {"nodes": [');
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        res.on('error', () => undefined);
        const pump = (): void => {
          while (sent < h.bytes) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('{}');
        };
        return pump();
      }
      case 'redirect':
        res.writeHead(302, { location: h.to + path });
        return void res.end();
      case 'body':
        if (path !== h.path) return this.answer(path, res);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(h.body) });
        return void res.end(h.body);
      default:
        return this.answer(path, res);
    }
  }

  private answer(path: string, res: ServerResponse): void {
    const metadata = metadataOf('OK');
    const g = this.graph;
    if (path === '/ping') return send(res, 200, { data: 'pong', metadata });
    if (path === '/v1/graph') {
      return send(res, 200, {
        data: {
          info: { node_count: g.nodes.length, edge_count: g.edges?.length ?? 0, ...(g.version ? { version: g.version } : {}) },
          nodes: g.nodes.map((n) => ({ id: n.name, name: n.name, ...(n.type ? { type: n.type } : {}) })),
          edges: (g.edges ?? []).map((e, i) => ({ id: `e${i}`, ...e })),
        },
        metadata,
      });
    }
    if (path === '/v1/graph/tools' && g.toolsRoute === false) return send(res, 404, { detail: 'Not Found' });
    if (path === '/v1/graph/tools') {
      const toolNodes = g.nodes.filter((n) => n.tools);
      return send(res, 200, {
        data: {
          node_count: toolNodes.length,
          tool_count: toolNodes.reduce((s, n) => s + n.tools!.length, 0),
          nodes: toolNodes.map((n) => ({
            node_name: n.name,
            tool_count: n.tools!.length,
            tools: n.tools!.map((t) => ({ name: t.name, description: t.description ?? '', parameters: { type: 'object', properties: {} }, source: t.source })),
          })),
        },
        metadata,
      });
    }
    send(res, 404, errorEnvelope('HTTPException', 'Not Found'));
  }
}

/** The `metadata` of every answer, as the real server writes it. */
function metadataOf(message: string): { request_id: string; timestamp: string; message: string } {
  return { request_id: 'test', timestamp: new Date().toISOString(), message };
}

/** An error answer's body: `{error: {code, message, details}, metadata}`. */
function errorEnvelope(code: string, message: string): unknown {
  return { error: { code, message, details: [] }, metadata: metadataOf(message) };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The graph of the quick start as a server would describe it: a model node and a ToolNode `TOOL`. */
export const QUICKSTART_LIKE_GRAPH: FakeGraph = {
  version: '0.1.0',
  nodes: [
    { name: 'agent', type: 'model_node' },
    {
      name: 'TOOL',
      type: 'tool_node',
      tools: [
        { name: 'get_time', description: 'Get the current time on the server.', source: 'local' },
        { name: 'get_user_location', description: "Get the user's current location.", source: 'remote' },
      ],
    },
    { name: 'format_answer', type: 'function_node' },
  ],
  edges: [
    { source: 'agent', target: 'TOOL' },
    { source: 'TOOL', target: 'agent' },
  ],
};
