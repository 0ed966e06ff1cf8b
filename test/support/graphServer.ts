/**
 * A loopback HTTP server that answers SPEC §3 (`/ping`, `/v1/graph`, `/v1/graph/tools`) from a
 * description, or misbehaves on purpose (slow, 500, malformed, huge, redirecting). It counts
 * the requests it gets and records their headers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeNode {
  name: string;
  type?: 'tool_node' | 'model_node' | 'function_node';
  tools?: Array<{ name: string; description?: string; source: 'local' | 'remote' }>;
}

export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'status'; status: number }
  | { kind: 'malformed' }
  | { kind: 'huge'; bytes: number }
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string };

export interface GraphServer {
  url: string;
  requests: IncomingMessage[];
  behaviour: Behaviour;
  nodes: FakeNode[];
  close(): Promise<void>;
}

/** Starts a graph server on 127.0.0.1 with a free port. */
export async function startGraphServer(nodes: FakeNode[], behaviour: Behaviour = { kind: 'ok' }, version = '0.1.0'): Promise<GraphServer> {
  const requests: IncomingMessage[] = [];
  const hanging = new Set<ServerResponse>();
  const state: GraphServer = { url: '', requests, behaviour, nodes, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    requests.push(req);
    const b = state.behaviour;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (b.kind === 'hang') {
      hanging.add(res);
      return;
    }
    if (b.kind === 'status') return send(res, b.status, { error: { code: 'failed', message: 'failed on purpose' } });
    if (b.kind === 'redirect') {
      res.writeHead(302, { location: b.location + path });
      return res.end();
    }
    if (b.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"data": {"nodes": [');
    }
    if (b.kind === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < b.bytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      res.on('error', () => undefined);
      return pump();
    }
    const metadata = { request_id: 'r', timestamp: new Date(0).toISOString(), message: 'ok' };
    if (path === '/ping') return send(res, 200, { data: 'pong', metadata });
    if (path === '/v1/graph') {
      const current = state.nodes;
      return send(res, 200, {
        data: {
          info: { node_count: current.length, edge_count: 0, version },
          nodes: current.map((n) => ({ id: n.name, name: n.name, ...(n.type ? { type: n.type } : {}) })),
          edges: [],
        },
        metadata,
      });
    }
    if (path === '/v1/graph/tools') {
      const toolNodes = state.nodes.filter((n) => n.tools);
      return send(res, 200, {
        data: {
          node_count: toolNodes.length,
          tool_count: toolNodes.reduce((s, n) => s + n.tools!.length, 0),
          nodes: toolNodes.map((n) => ({ node_name: n.name, tool_count: n.tools!.length, tools: n.tools!.map((t) => ({ parameters: { type: 'object', properties: {} }, description: '', ...t })) })),
        },
        metadata,
      });
    }
    send(res, 404, { error: { code: 'not_found', message: `no route ${path}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The corpus graph (test/support/corpus.ts) as a server without remote tools attached would list it. */
export const CORPUS_SERVER_NODES: FakeNode[] = [
  { name: 'agent', type: 'model_node' },
  { name: 'TOOL', type: 'tool_node', tools: [{ name: 'get_time', description: 'Get the current time on the server.', source: 'local' }] },
  { name: 'format_answer', type: 'function_node' },
];
