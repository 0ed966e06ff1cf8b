/**
 * Bounds on the sockets of `10xgraph api`: raw answers that close their socket (refused upgrades,
 * malformed requests, CONNECT), and the WebSocket guard (heartbeat, idle bound, back-pressure,
 * concurrent runs per connection). A client that stalls, never reads or never leaves cannot hold
 * the server's memory or sockets without bound.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ApiError } from './errors';
import { errorPayload } from './http';
import { loadCrypto, loadHttp } from './lazy';

/** The time limits and bounds of a server (every field has a default). */
export interface SocketLimits {
  /** Time to receive a request's headers; answered 408 (default 30 s). */
  headersTimeoutMs: number;
  /** Longest pause while a request body arrives; answered 408 (default 30 s). */
  bodyTimeoutMs: number;
  /** Time to receive a whole request, body included (default 120 s). */
  requestTimeoutMs: number;
  /** Interval of WebSocket pings; a socket that missed the previous pong is dropped (default 30 s). */
  heartbeatMs: number;
  /** A WebSocket with no run and no frame for this long is closed (default 10 min). */
  idleTimeoutMs: number;
  /** Bytes queued for a client that does not read before its connection is dropped (default 8 MiB). */
  maxBufferedBytes: number;
  /**
   * Runs one WebSocket may have at once (default 16). Past it the server stops reading the
   * socket until a run ends, so further requests wait in the client's own buffers.
   */
  maxRunsPerSocket: number;
}

/** The defaults of `SocketLimits`. */
export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  requestTimeoutMs: 120_000,
  heartbeatMs: 30_000,
  idleTimeoutMs: 10 * 60_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxRunsPerSocket: 16,
};

/**
 * Requests read in the same chunk as the one that reached the bound (the socket is paused, but
 * what it already read is still parsed) wait here; more than this many are refused.
 */
const MAX_WAITING_RUNS = 64;

/** How long a refused socket may take to take its answer before it is destroyed anyway. */
const CLOSE_GRACE_MS = 2000;

/**
 * Answers on a raw socket (a refused upgrade, a malformed request, CONNECT) with a JSON error
 * and closes it: the answer is flushed, then the socket destroyed, so a client that never closes
 * its side does not keep it open.
 */
export function answerAndClose(socket: Duplex, error: ApiError, headers: Record<string, string> = {}, requestId: string = loadCrypto().randomUUID()): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(errorPayload(requestId, error));
  const extra = Object.entries({ ...(error.status === 401 ? { 'www-authenticate': 'Bearer realm="10xgraph"' } : {}), ...error.headers, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  timer.unref();
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${error.status} ${loadHttp().STATUS_CODES[error.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nx-request-id: ${requestId}\r\nconnection: close\r\n${extra}\r\n${body}`,
    () => {
      clearTimeout(timer);
      socket.destroy();
    },
  );
}

/** What the guard reports to the server's log. */
export interface GuardEvents {
  dropped(reason: 'heartbeat' | 'backpressure', detail: string): void;
  idle(): void;
}

/** The per-connection state of one WebSocket: its runs and its liveness. */
export interface SocketGuard {
  /** Sends a text frame unless the client stopped reading; past the bound, drops the connection. */
  send(text: string): void;
  /**
   * Starts a run now, or once another ends when the connection has its most runs (reading the
   * socket is paused meanwhile). False when even the waiting list is full: the request is refused.
   */
  schedule(start: () => Promise<unknown>): boolean;
  /** Stops the timers (the socket closed). */
  stop(): void;
}

/** Watches one WebSocket: pings it, closes it when idle, drops it when it stops reading. */
export function guardWebSocket(ws: WebSocket, limits: SocketLimits, events: GuardEvents): SocketGuard {
  let alive = true;
  let runs = 0;
  const waiting: Array<() => Promise<unknown>> = [];
  let idleTimer: NodeJS.Timeout | undefined;
  const beat = () => {
    // A paused socket cannot read the pong; its runs are going, so it is not idle or dead yet.
    if (ws.isPaused || ws.readyState === ws.CLOSED) return;
    if (!alive) {
      events.dropped('heartbeat', `no answer to a ping within ${limits.heartbeatMs} ms`);
      ws.terminate();
      return;
    }
    alive = false;
    if (ws.readyState === ws.OPEN) ws.ping();
  };
  // The verdict waits for the input already received: after the process stalled (a long
  // synchronous task, a loaded machine) the timer comes due before the pong waiting in the
  // socket has been read, and a live client would be dropped for the server's own delay.
  const heartbeat = setInterval(() => setImmediate(beat), limits.heartbeatMs);
  heartbeat.unref();

  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (runs > 0) return;
    idleTimer = setTimeout(() => {
      events.idle();
      ws.close(1001, `idle for ${Math.round(limits.idleTimeoutMs / 1000)} s`);
      // A client that never answers the close handshake is not waited for.
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    }, limits.idleTimeoutMs);
    idleTimer.unref();
  };
  ws.on('pong', () => (alive = true));
  ws.on('message', () => {
    alive = true;
    armIdle();
  });
  armIdle();

  function run(start: () => Promise<unknown>): void {
    runs++;
    armIdle();
    // The work answers its own failures (webSocket.ts); a rejection that slips through must not end the process.
    void start()
      .catch(() => undefined)
      .finally(() => {
        runs--;
        const next = waiting.shift();
        if (next) run(next);
        else if (ws.isPaused && ws.readyState === ws.OPEN) ws.resume();
        armIdle();
      });
  }

  let droppedForBackpressure = false;
  return {
    send(text) {
      if (ws.readyState !== ws.OPEN) return;
      // What is already queued counts, not this frame: one large chunk to a reading client is fine.
      if (ws.bufferedAmount > limits.maxBufferedBytes) {
        if (!droppedForBackpressure) {
          droppedForBackpressure = true;
          events.dropped('backpressure', `${ws.bufferedAmount} bytes waiting for a client that does not read (the bound is ${limits.maxBufferedBytes})`);
        }
        ws.terminate();
        return;
      }
      ws.send(text);
    },
    schedule(start) {
      if (runs < limits.maxRunsPerSocket) {
        run(start);
        return true;
      }
      if (waiting.length >= MAX_WAITING_RUNS) return false;
      waiting.push(start);
      if (!ws.isPaused) ws.pause();
      return true;
    },
    stop() {
      clearInterval(heartbeat);
      clearTimeout(idleTimer);
      // Requests that never started have no one left to answer: they are dropped, threads untouched.
      waiting.length = 0;
    },
  };
}

/**
 * Runs per HTTP connection. HTTP/1.1 pipelining lets one connection send any number of requests
 * before reading an answer, and Node starts each at once: without a bound, one socket could start
 * thousands of runs. `take` returns the release of a slot, or undefined when the connection has
 * its most runs going.
 */
export function createRunSlots(max: number): { take(socket: object): (() => void) | undefined } {
  const counts = new WeakMap<object, number>();
  return {
    take(socket) {
      const count = counts.get(socket) ?? 0;
      if (count >= max) return undefined;
      counts.set(socket, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        counts.set(socket, (counts.get(socket) ?? 1) - 1);
      };
    },
  };
}
