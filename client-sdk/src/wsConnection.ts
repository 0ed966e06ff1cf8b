import { ChunkQueue, parseChunk } from './chunks';
import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';

/**
 * The part of the WebSocket API the client uses. The browser's `WebSocket` and the `ws`
 * package's both fit (handlers take `any` because their event types differ).
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers and Node 22+, `ws` in Node 20. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

const OPEN = 1;

/** The subprotocol of the 10xgraph WebSocket; the server answers with it. */
export const WS_PROTOCOL = '10xgraph';

/**
 * The subprotocols a client offers: `10xgraph`, and with a token `10xgraph.bearer.<base64url
 * token>`. Browsers cannot set headers on a WebSocket, and a token in the URL ends up in logs and
 * histories; a subprotocol does neither (the server never echoes or logs it).
 */
export function webSocketProtocols(token: string | undefined): string[] {
  if (token === undefined || token === '') return [WS_PROTOCOL];
  // btoa over the UTF-8 bytes, so this runs in browsers as well as in Node.
  let binary = '';
  for (const byte of new TextEncoder().encode(token)) binary += String.fromCharCode(byte);
  const encoded = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return [WS_PROTOCOL, `${WS_PROTOCOL}.bearer.${encoded}`];
}

/**
 * One WebSocket shared by every streaming request of a client. Requests are multiplexed by
 * their id (the server echoes it as `request_id` on each chunk), so concurrent runs need no
 * socket each. A lost socket fails the requests on it; the next request opens a new one.
 */
export class WsConnection {
  private socket?: WebSocketLike;
  private opening?: Promise<WebSocketLike>;
  private readonly queues = new Map<string, ChunkQueue>();

  constructor(
    private readonly url: string,
    private readonly shownUrl: string,
    private readonly WebSocketImpl: WebSocketConstructor,
    private readonly protocols: string[] = [WS_PROTOCOL],
  ) {}

  /** Sends one request frame and returns the queue its chunks arrive on. */
  async request(id: string, frame: Record<string, unknown>): Promise<ChunkQueue> {
    const queue = new ChunkQueue();
    this.queues.set(id, queue);
    try {
      const socket = await this.open();
      socket.send(JSON.stringify({ id, ...frame }));
    } catch (error) {
      this.queues.delete(id);
      throw error;
    }
    return queue;
  }

  /** Stops routing chunks of request `id` (its stream is done or abandoned). */
  release(id: string): void {
    this.queues.delete(id);
  }

  /** Closes the socket; running requests fail with `connection_closed`. */
  close(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.opening = undefined;
    if (socket) {
      this.failAll(new TenxGraphError(0, CLIENT_ERROR_CODES.connectionClosed, `The WebSocket to ${this.shownUrl} was closed by the client while a request was running.`));
      socket.close(1000, 'client closed');
    }
  }

  private open(): Promise<WebSocketLike> {
    if (this.socket && this.socket.readyState === OPEN) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    this.opening = new Promise<WebSocketLike>((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = new this.WebSocketImpl(this.url, this.protocols);
      } catch (error) {
        this.opening = undefined;
        reject(new TenxGraphError(0, CLIENT_ERROR_CODES.network, `Could not open a WebSocket to ${this.shownUrl}: ${error instanceof Error ? error.message : String(error)}.`));
        return;
      }
      let opened = false;
      socket.onopen = () => {
        opened = true;
        this.socket = socket;
        this.opening = undefined;
        resolve(socket);
      };
      socket.onmessage = (event: { data: unknown }) => {
        void this.route(event.data);
      };
      socket.onerror = (event: { message?: unknown; error?: unknown }) => {
        if (opened) return; // onclose follows and reports it
        this.opening = undefined;
        const detail = typeof event?.message === 'string' ? `: ${event.message}` : '';
        reject(
          new TenxGraphError(
            0,
            CLIENT_ERROR_CODES.network,
            `Could not open a WebSocket to ${this.shownUrl}${detail}; check that \`10xgraph api\` is running there and that the token is right.`,
          ),
        );
      };
      socket.onclose = (event: { code?: number; reason?: string }) => {
        if (!opened) {
          this.opening = undefined;
          reject(new TenxGraphError(0, CLIENT_ERROR_CODES.network, `The WebSocket to ${this.shownUrl} closed before it opened (code ${event?.code ?? 'unknown'}).`));
          return;
        }
        if (this.socket === socket) this.socket = undefined;
        const reason = event?.reason ? `: ${event.reason}` : '';
        this.failAll(
          new TenxGraphError(
            0,
            CLIENT_ERROR_CODES.connectionClosed,
            `The WebSocket to ${this.shownUrl} closed (code ${event?.code ?? 'unknown'}${reason}) while a request was running; retry it on the same thread.`,
          ),
        );
      };
    });
    return this.opening;
  }

  private async route(data: unknown): Promise<void> {
    let text: string;
    if (typeof data === 'string') text = data;
    else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) text = new TextDecoder().decode(data as ArrayBuffer);
    else if (data && typeof (data as Blob).text === 'function') text = await (data as Blob).text();
    else return;
    let chunk;
    try {
      chunk = parseChunk(text, `WebSocket at ${this.shownUrl}`);
    } catch (error) {
      // A frame that cannot be read poisons every request on this socket: none can know if it was theirs.
      this.failAll(error);
      return;
    }
    const id = chunk.request_id;
    const queue = id === undefined ? undefined : this.queues.get(id);
    queue?.push(chunk);
  }

  private failAll(error: unknown): void {
    for (const queue of this.queues.values()) queue.fail(error);
    this.queues.clear();
  }
}
