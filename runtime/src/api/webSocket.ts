/**
 * The WebSocket route of `10xgraph api` (`/v1/graph/ws`): each text frame `{id, messages, config}`
 * starts a run whose chunks come back tagged with the frame's id, under the socket's guard
 * (sockets.ts). The server's route table routes the upgrade here once it is admitted.
 */
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import type { StreamChunk } from '10xgraph-client/wire';
import { errorMessageOf } from '../graph/errors';
import { ApiError } from './errors';
import type { ApiLogger } from './log';
import { shownValue } from './origin';
import type { PreparedRun, RunEngine } from './runEngine';
import { guardWebSocket, type SocketLimits } from './sockets';
import { parseRunRequest } from './validate';

/** What a run socket needs of its server. */
export interface RunSocketOptions {
  engine: RunEngine;
  limits: SocketLimits;
  log: ApiLogger;
  /** The route's pattern, as the log names it. */
  route: string;
}

/** Serves one opened WebSocket: a run per request frame, each answered with its chunks. */
export function serveRunSocket(ws: WebSocket, options: RunSocketOptions): void {
  const { engine, limits, log, route } = options;
  const guard = guardWebSocket(ws, limits, {
    dropped: (reason, detail) => log.warn(`Dropped a WebSocket: ${detail}.`, { event: 'websocket_dropped', reason }),
    idle: () => log.info(`Closed a WebSocket idle for ${limits.idleTimeoutMs} ms.`, { event: 'websocket_idle' }),
  });
  ws.on('error', () => {});
  ws.on('close', (code: number) => {
    guard.stop();
    log.debug?.(`A WebSocket closed (code ${code}).`, { event: 'websocket_closed', code });
  });
  ws.on('message', (data: RawData, isBinary: boolean) => {
    let requestId: string | null = null;
    let threadId: string | null = null;
    const started = performance.now();
    const send = (chunk: StreamChunk) => guard.send(JSON.stringify({ ...chunk, request_id: requestId }));
    const logFrame = (status: string, code?: string) => {
      const duration = Math.round((performance.now() - started) * 10) / 10;
      // The id is the client's, of any length: cut alike in the line and in the record.
      const shownId = requestId === null ? null : shownValue(requestId, 80);
      log.info(`WS ${route} request ${shownId ?? '-'} ${status}${code ? ` (${code})` : ''} in ${duration} ms`, {
        event: 'ws_request',
        route,
        ws_request_id: shownId,
        thread_id: threadId,
        status,
        ...(code ? { code } : {}),
        duration_ms: duration,
      });
    };
    const fail = (error: unknown) => {
      const failure = error instanceof ApiError ? error : new ApiError(500, 'internal_error', errorMessageOf(error));
      send({ event: 'error', data: { code: failure.code, message: failure.message } });
      send({ event: 'end', data: { thread_id: threadId, status: 'error' } });
      logFrame('error', failure.code);
    };
    try {
      if (isBinary) throw new ApiError(400, 'invalid_frame', 'Send requests as text frames holding JSON.');
      let frame: unknown;
      try {
        frame = JSON.parse(rawText(data));
      } catch (error) {
        throw new ApiError(400, 'invalid_json', `The frame is not valid JSON (${errorMessageOf(error)}); send {"id", "messages", "config"}.`);
      }
      const id = (frame as { id?: unknown } | null)?.id;
      if (typeof id === 'string' || typeof id === 'number') requestId = String(id);
      const request = parseRunRequest(frame);
      threadId = request.threadId ?? null;
      // The thread is checked and locked when the run starts: it may wait for a free slot first.
      const accepted = guard.schedule(async () => {
        let prepared: PreparedRun;
        try {
          prepared = await engine.prepare(request);
        } catch (error) {
          fail(error);
          return;
        }
        threadId = prepared.threadId;
        const outcome = await engine.execute(prepared, send);
        logFrame(outcome.status, outcome.error?.code);
      });
      if (!accepted)
        throw new ApiError(429, 'too_many_runs', `This WebSocket has ${limits.maxRunsPerSocket} runs going and more waiting; wait for their ends before sending more.`);
    } catch (error) {
      fail(error);
    }
  });
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
