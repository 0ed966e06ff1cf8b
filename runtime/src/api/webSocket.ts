/**
 * The WebSocket route of `10xgraph api` (`/v1/graph/ws`), on the real 10xGraph server's frames:
 * a client sends `{invoke_type: "fresh", messages, config?, …}` to start a run and
 * `{invoke_type: "resume", tool_result: [tool messages], config: {thread_id}}` to send the
 * results of its remote calls; each run's chunks come back one text frame each (the stream's
 * chunks), then `{event: "updates", data: {status: "done"}}`. Runs on one socket go one after
 * another, under the socket's guard (sockets.ts). The server's route table routes the upgrade
 * here once it is admitted.
 */
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import { WS_DONE_STATUS, type StreamChunk } from '10xgraph-client/wire';
import { errorMessageOf } from '../graph/errors';
import { ApiError } from './errors';
import type { ApiLogger } from './log';
import type { RunRefusal, SocketContext } from './router';
import { chunkOf, type PreparedRun, type RunEngine } from './runEngine';
import { guardWebSocket, type SocketLimits } from './sockets';
import { isObject, parseRunRequest, type RunRequest } from './validate';

/** The most runs and refusals one socket keeps waiting in order; refusals past it are sent at once. */
const MAX_QUEUED_ANSWERS = 64;

/** What a run socket needs of its server. */
export interface RunSocketOptions {
  engine: RunEngine;
  limits: SocketLimits;
  log: ApiLogger;
  /** The route's pattern, as the log names it. */
  route: string;
}

/** A run socket's options with what the server's handshake gave it (the caller, the per-run checks). */
export type RunSocketContext = RunSocketOptions & SocketContext;

/** Reads one frame into a run request, or throws the 422 of a frame that is not one. */
export function parseRunFrame(frame: unknown): RunRequest {
  if (!isObject(frame)) throw new ApiError(422, 'VALIDATION_ERROR', 'Invalid request: a frame is a JSON object such as {"invoke_type": "fresh", "messages": [...]}.');
  const type = frame.invoke_type ?? 'fresh';
  if (type === 'fresh') return parseRunRequest(frame);
  if (type === 'resume') {
    const request = parseRunRequest(frame, 'tool_result');
    if (request.threadId === undefined) {
      throw new ApiError(422, 'VALIDATION_ERROR', "Invalid request: a 'resume' frame names its thread in config.thread_id.", [
        { loc: ['body', 'config', 'thread_id'], msg: 'required for resume', type: 'missing' },
      ]);
    }
    return request;
  }
  throw new ApiError(422, 'VALIDATION_ERROR', `Invalid request: invoke_type must be "fresh" or "resume"; got ${JSON.stringify(type)?.slice(0, 40)}.`, [
    { loc: ['body', 'invoke_type'], msg: 'must be "fresh" or "resume"', type: 'literal_error' },
  ]);
}

/** Serves one opened WebSocket: a run per frame, one after another, each ended by a `done` chunk. */
export function serveRunSocket(ws: WebSocket, options: RunSocketContext): void {
  const { engine, limits, log, route, caller } = options;
  const guard = guardWebSocket(ws, limits, {
    dropped: (reason, detail) => log.warn(`Dropped a WebSocket: ${detail}.`, { event: 'websocket_dropped', reason }),
    idle: () => log.info(`Closed a WebSocket idle for ${limits.idleTimeoutMs} ms.`, { event: 'websocket_idle' }),
  });
  /** The runs of this socket, one after another, as the real server takes them. */
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs and refusals waiting on `queue`: past the bound a refusal goes out at once, so a flood cannot grow it. */
  let queued = 0;
  const enqueue = (work: () => Promise<void> | void): Promise<void> => {
    queued++;
    const next = queue.then(work).finally(() => queued--);
    queue = next;
    return next;
  };
  /** Set when the socket closes: frames still queued then are dropped, their threads untouched. */
  let closed = false;
  ws.on('error', () => {});
  ws.on('close', (code: number) => {
    closed = true;
    guard.stop();
    log.debug?.(`A WebSocket closed (code ${code}).`, { event: 'websocket_closed', code });
  });
  ws.on('message', (data: RawData, isBinary: boolean) => {
    let threadId: string | null = null;
    const started = performance.now();
    const send = (chunk: StreamChunk) => guard.send(JSON.stringify(chunk));
    const done = () => send(chunkOf('updates', { data: { status: WS_DONE_STATUS } }));
    const logFrame = (status: string, code?: string) => {
      const duration = Math.round((performance.now() - started) * 10) / 10;
      log.info(`WS ${route} run ${status}${code ? ` (${code})` : ''} in ${duration} ms`, {
        event: 'ws_request',
        route,
        thread_id: threadId,
        status,
        ...(code ? { code } : {}),
        duration_ms: duration,
      });
    };
    // A frame that is not a run gets its error and a `done`, so a client waiting for the end is not left hanging.
    const fail = (error: unknown) => {
      const failure = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_SERVER_ERROR', errorMessageOf(error));
      send(chunkOf('error', { data: { reason: failure.message, code: failure.code, ...(failure.details.length ? { details: failure.details } : {}) }, thread_id: threadId }));
      done();
      logFrame('error', failure.code);
    };
    try {
      if (isBinary) throw new ApiError(422, 'VALIDATION_ERROR', 'Invalid request: send frames as text holding JSON.');
      let frame: unknown;
      try {
        frame = JSON.parse(rawText(data));
      } catch (error) {
        throw new ApiError(422, 'VALIDATION_ERROR', `Invalid request: the frame is not valid JSON (${errorMessageOf(error)}); send {"invoke_type": "fresh", "messages": [...]}.`);
      }
      const request = parseRunFrame(frame);
      threadId = request.threadId ?? null;
      // The thread is checked and locked when the run starts: after the socket's earlier runs.
      const accepted = guard.schedule(() =>
        enqueue(async () => {
          if (closed) return;
          // As the real server gates each run: the token still verifies as the same user, the rate limit lets it through.
          let refusal: RunRefusal | undefined;
          try {
            refusal = await options.admitRun();
          } catch (error) {
            // An authenticator that fails (a custom module's bug) fails this run, not the server.
            log.error(`A WebSocket run could not be checked: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, { event: 'websocket_check_failed' });
            fail(new ApiError(500, 'INTERNAL_SERVER_ERROR', 'The server could not check this run; see its log.'));
            return;
          }
          if (refusal) {
            send(
              chunkOf('error', {
                data: { reason: refusal.reason, ...(refusal.retryAfterSeconds === undefined ? {} : { retry_after_seconds: refusal.retryAfterSeconds }) },
                thread_id: threadId,
              }),
            );
            if (refusal.close) {
              closed = true;
              ws.close(refusal.close.code, refusal.close.reason);
              logFrame('refused', 'SESSION_EXPIRED');
              return;
            }
            done();
            logFrame('refused', 'RATE_LIMIT_EXCEEDED');
            return;
          }
          let prepared: PreparedRun;
          try {
            prepared = await engine.prepare(request, caller);
          } catch (error) {
            // Another user's thread: the real server's per-run refusal, and the socket stays open.
            if (error instanceof ApiError && error.status === 403 && threadId !== null) fail(new ApiError(403, error.code, `Not authorized to stream thread ${threadId}`));
            else fail(error);
            return;
          }
          threadId = prepared.threadId;
          const outcome = await engine.execute(prepared, send, { deltas: true });
          done();
          logFrame(outcome.status, outcome.error?.code);
        }),
      );
      if (!accepted) throw new ApiError(429, 'TOO_MANY_RUNS', 'This WebSocket has too many runs waiting; wait for their done before sending more.');
    } catch (error) {
      // After the runs the socket already has, so a client reading until each `done` reads its answers in order;
      // a flood's refusal (too many runs, or too many answers waiting) goes out at once.
      const flood = error instanceof ApiError && error.code === 'TOO_MANY_RUNS';
      if (!flood && queued < MAX_QUEUED_ANSWERS) void enqueue(() => fail(error));
      else fail(error);
    }
  });
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
