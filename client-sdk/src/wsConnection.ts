import { ChunkQueue, parseChunk } from './chunks';
import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';
import { WS_BEARER_PROTOCOL } from './wire';

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

// A subprotocol is an HTTP token (RFC 6455 §4.1): a token with other characters cannot travel as one.
const PROTOCOL_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The subprotocols a client offers: none without a token, else the bearer entry and the token. */
export function webSocketProtocols(token: string | undefined): string[] {
  if (token === undefined || token === '') return [];
  if (!PROTOCOL_TOKEN.test(token)) {
    throw new TenxGraphError(
      0,
      CLIENT_ERROR_CODES.unsupported,
      "The token has characters a WebSocket subprotocol cannot carry (only letters, digits and !#$%&'*+.^_`|~- can travel); stream over HTTP, or use a token of those characters.",
    );
  }
  return [WS_BEARER_PROTOCOL, token];
}

const OPEN = 1;

/**
 * One WebSocket run: a socket opened for it, the frames sent on it and the chunks that come
 * back, in a queue; the socket is closed when the run is done with it. A socket serves one run
 * at a time, as the server's WebSocket does.
 */
export class WsRun {
  readonly chunks = new ChunkQueue();
  private socket?: WebSocketLike;
  private closed = false;

  private constructor(private readonly shownUrl: string) {}

  /** Opens a socket to `url` offering `protocols`; rejects with a `NETWORK_ERROR` when it does not open. */
  static open(url: string, shownUrl: string, WebSocketImpl: WebSocketConstructor, protocols: string[]): Promise<WsRun> {
    const run = new WsRun(shownUrl);
    return new Promise<WsRun>((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = protocols.length > 0 ? new WebSocketImpl(url, protocols) : new WebSocketImpl(url);
      } catch (error) {
        reject(new TenxGraphError(0, CLIENT_ERROR_CODES.network, `Could not open a WebSocket to ${shownUrl}: ${error instanceof Error ? error.message : String(error)}.`));
        return;
      }
      let opened = false;
      run.socket = socket;
      socket.onopen = () => {
        opened = true;
        resolve(run);
      };
      socket.onmessage = (event: { data: unknown }) => void run.route(event.data);
      socket.onerror = (event: { message?: unknown }) => {
        if (opened) return; // onclose follows and reports it
        const detail = typeof event?.message === 'string' ? `: ${event.message}` : '';
        reject(
          new TenxGraphError(
            0,
            CLIENT_ERROR_CODES.network,
            `Could not open a WebSocket to ${shownUrl}${detail}; check that the server is running there and that the token is right.`,
          ),
        );
      };
      socket.onclose = (event: { code?: number; reason?: string }) => {
        if (!opened) {
          reject(new TenxGraphError(0, CLIENT_ERROR_CODES.network, `The WebSocket to ${shownUrl} closed before it opened (code ${event?.code ?? 'unknown'}).`));
          return;
        }
        if (run.closed) return;
        run.closed = true;
        const reason = event?.reason ? `: ${event.reason}` : '';
        run.chunks.fail(
          new TenxGraphError(
            0,
            CLIENT_ERROR_CODES.connectionClosed,
            `The WebSocket to ${shownUrl} closed (code ${event?.code ?? 'unknown'}${reason}) while a run was going; retry it on the same thread.`,
          ),
        );
      };
    });
  }

  /** Sends one frame. */
  send(frame: Record<string, unknown>): void {
    if (!this.socket || this.socket.readyState !== OPEN) {
      throw new TenxGraphError(0, CLIENT_ERROR_CODES.connectionClosed, `The WebSocket to ${this.shownUrl} is closed; retry the run.`);
    }
    this.socket.send(JSON.stringify(frame));
  }

  /** Closes the socket (normal closure); chunks not yet read are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks.fail(new TenxGraphError(0, CLIENT_ERROR_CODES.connectionClosed, `The WebSocket to ${this.shownUrl} was closed by the client.`));
    try {
      this.socket?.close(1000, 'done');
    } catch {
      // Already closing.
    }
  }

  private async route(data: unknown): Promise<void> {
    let text: string;
    if (typeof data === 'string') text = data;
    else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) text = new TextDecoder().decode(data as ArrayBuffer);
    else if (data && typeof (data as Blob).text === 'function') text = await (data as Blob).text();
    else return;
    try {
      this.chunks.push(parseChunk(text.trim(), `WebSocket at ${this.shownUrl}`));
    } catch (error) {
      this.chunks.fail(error);
    }
  }
}
