/**
 * Hostile "10xgraph servers" on loopback, written on raw TCP so they can misbehave below HTTP:
 * accept and never answer, trickle one byte a second, stream a gigabyte, redirect to another
 * origin, fail, answer bytes that are not UTF-8 or JSON of the wrong shape. Each records the
 * requests it saw (with their Authorization header) and the bytes it wrote per connection.
 */
import { createServer, type Server, type Socket } from 'node:net';

/** How the server answers one request path. */
export type Behaviour =
  | { kind: 'silent' }
  | { kind: 'trickle-head' }
  | { kind: 'trickle-body' }
  | { kind: 'flood'; totalBytes: number; declareLength: boolean }
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  | { kind: 'status'; status: number }
  | { kind: 'body'; body: Buffer | string; status?: number };

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
}

const REASONS: Record<number, string> = {
  200: 'OK',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'Internal Server Error',
};

/** A misbehaving graph server. */
export class HostileServer {
  readonly requests: SeenRequest[] = [];
  /** Bytes written on each closed connection (socket.bytesWritten at close). */
  readonly bytesWrittenPerConnection: number[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  port = 0;

  /** `behave` picks the behaviour by path (`/v1/graph`, `/v1/graph/tools`, …). */
  constructor(public behave: (path: string) => Behaviour) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** The base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Total bytes written on connections closed so far. */
  get bytesWritten(): number {
    return this.bytesWrittenPerConnection.reduce((a, b) => a + b, 0);
  }

  /** Connections still open. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Listens on a free loopback port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Closes every connection (waiting for each to report its bytes) and the listener. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    const closed = [...this.sockets].map(
      (socket) =>
        new Promise<void>((resolve) => {
          socket.once('close', () => resolve());
          socket.destroy();
        }),
    );
    await Promise.all(closed);
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.bytesWrittenPerConnection.push(socket.bytesWritten);
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [requestLine, ...lines] = head.slice(0, end).split('\r\n');
      const [method = '', target = ''] = (requestLine ?? '').split(' ');
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const path = new URL(target, 'http://x').pathname;
      const authorization = headers.get('authorization');
      this.requests.push({ method, path, ...(authorization !== undefined ? { authorization } : {}) });
      this.answer(socket, this.behave(path));
    };
    socket.on('data', onData);
  }

  private answer(socket: Socket, behaviour: Behaviour): void {
    const head = (status: number, extra: string[] = []) => [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}`, 'Connection: close', ...extra, '', ''].join('\r\n');
    switch (behaviour.kind) {
      case 'silent':
        return;
      case 'trickle-head':
      case 'trickle-body': {
        const body = '{"data": {"nodes": []}}';
        const whole = behaviour.kind === 'trickle-head' ? head(200, ['Content-Type: application/json']) + body : body;
        if (behaviour.kind === 'trickle-body') socket.write(head(200, ['Content-Type: application/json']));
        let at = 0;
        const timer = setInterval(() => {
          if (at >= whole.length || socket.destroyed) {
            clearInterval(timer);
            this.timers.delete(timer);
            socket.end();
            return;
          }
          socket.write(whole[at++]!);
        }, 1000);
        this.timers.add(timer);
        return;
      }
      case 'flood': {
        socket.write(head(200, ['Content-Type: application/json', ...(behaviour.declareLength ? [`Content-Length: ${behaviour.totalBytes}`] : [])]));
        const chunk = Buffer.from('{"id":"n","name":"n","type":"tool_node"},'.repeat(1600));
        let sent = 0;
        socket.write('{"data":{"nodes":[');
        const pump = (): void => {
          while (sent < behaviour.totalBytes && !socket.destroyed) {
            sent += chunk.length;
            if (!socket.write(chunk)) {
              socket.once('drain', pump);
              return;
            }
          }
          socket.end();
        };
        pump();
        return;
      }
      case 'redirect':
        socket.end(head(behaviour.status, [`Location: ${behaviour.location}`, 'Content-Length: 0']));
        return;
      case 'status': {
        const body = JSON.stringify({ error: { code: 'refused', message: `refused with ${behaviour.status}` } });
        socket.end(head(behaviour.status, ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]) + body);
        return;
      }
      case 'body': {
        const body = typeof behaviour.body === 'string' ? Buffer.from(behaviour.body) : behaviour.body;
        socket.write(head(behaviour.status ?? 200, ['Content-Type: application/json', `Content-Length: ${body.length}`]));
        socket.end(body);
      }
    }
  }
}

/** The envelope of a graph answer. */
export function envelope(data: unknown): string {
  return JSON.stringify({ data, metadata: { request_id: 'hostile', timestamp: new Date(0).toISOString(), message: 'ok' } });
}

/** A graph of `count` nodes (every `toolEvery`-th one a ToolNode) as `/v1/graph` and `/v1/graph/tools` answer it. */
export function bigGraph(count: number, toolEvery: number): { graph: string; tools: string } {
  const nodes = Array.from({ length: count }, (_, i) => ({ id: `node_${i}`, name: `node_${i}`, type: i % toolEvery === 0 ? 'tool_node' : 'function_node' }));
  const toolNodes = nodes
    .filter((n) => n.type === 'tool_node')
    .map((n) => ({
      node_name: n.name,
      tool_count: 1,
      tools: [{ name: `tool_of_${n.name}`, description: 'A tool.', parameters: { type: 'object', properties: {} }, source: 'local' }],
    }));
  return {
    graph: envelope({ info: { node_count: count, edge_count: 0, version: '0.1.0' }, nodes, edges: [] }),
    tools: envelope({ node_count: toolNodes.length, tool_count: toolNodes.length, nodes: toolNodes }),
  };
}

/** A small valid answer for either path. */
export function validAnswer(path: string): Behaviour {
  if (path === '/v1/graph/tools') return { kind: 'body', body: envelope({ node_count: 1, tool_count: 0, nodes: [{ node_name: 'TOOL', tool_count: 0, tools: [] }] }) };
  return { kind: 'body', body: envelope({ info: { node_count: 1, edge_count: 0, version: '0.1.0' }, nodes: [{ id: 'TOOL', name: 'TOOL', type: 'tool_node' }], edges: [] }) };
}
