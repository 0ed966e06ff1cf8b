/**
 * The envelope every answer is wrapped in, and reading a JSON body within a size limit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorEnvelope, ResponseMetadata } from '10xgraph-client/wire';
import { ApiError, validationError } from './errors';

/** The last timestamp written, and the millisecond it stands for: answers within one millisecond share it. */
let stampMs = -1;
let stamp = '';

/** The current time as ISO 8601, formatted at most once per millisecond. */
function timestamp(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

/** Makes the metadata of an answer. */
function metadataFor(requestId: string, message: string): ResponseMetadata {
  return { request_id: requestId, timestamp: timestamp(), message };
}

/** Answers `{data, metadata}` with a status (200 unless told). */
export function sendData(res: ServerResponse, requestId: string, data: unknown, message: string, status = 200): void {
  sendJson(res, status, { data, metadata: metadataFor(requestId, message) }, requestId);
}

/** The body of an error answer: `{error: {code, message, details}, metadata}`. */
export function errorPayload(requestId: string, error: ApiError): ErrorEnvelope {
  return { error: { code: error.code, message: error.message, details: error.details }, metadata: metadataFor(requestId, error.message) };
}

/** Answers `{error: {code, message, details}, metadata}` with the error's status. */
export function sendError(res: ServerResponse, requestId: string, error: ApiError, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries({ ...error.headers, ...headers })) res.setHeader(name, value);
  sendJson(res, error.status, errorPayload(requestId, error), requestId);
}

function sendJson(res: ServerResponse, status: number, payload: unknown, requestId: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  closeIfBodyUnread(res);
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-request-id': requestId,
  });
  res.end(body);
}

/**
 * The largest unread body that is still read and dropped after the answer, so that the connection
 * carries the next request (a pipelined one, a client's next call): a few packets, never a cost.
 */
const DROPPED_BODY_BYTES = 64 * 1024;

/**
 * Marks the answer `Connection: close` when the request's body has not arrived whole and is not
 * a small declared one: a refusal that needs no body (401, 404, 405, a refused origin, a thread
 * route), or a body past the limit. The rest is then never read: Node ends the connection once
 * the answer is written, rather than read a body of any size (2 GiB declared, or chunks without
 * end) only to drop it, and no body costs the server more than the limit whatever the route.
 * Call it before the head is written.
 */
export function closeIfBodyUnread(res: ServerResponse): void {
  const req = res.req;
  if (req.complete || res.headersSent) return;
  const declared = req.headers['content-length'];
  // A request without a body is complete only once its handler returns: told apart by its head.
  if (req.headers['transfer-encoding'] === undefined && (declared === undefined || Number(declared) <= DROPPED_BODY_BYTES)) return;
  res.setHeader('connection', 'close');
}

/** Tells whether a Content-Type says JSON (`application/json`, `application/*+json`). */
function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  // What clients send almost always: decided without splitting and lowering the header.
  if (value === 'application/json') return true;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads a JSON body of at most `limit` bytes. Throws 415 when it is not declared JSON, 413 when it
 * is too large (at once when its Content-Length says so, else as soon as it grows past the limit;
 * the rest is not read and the connection is closed with the answer), 408 when the client pauses
 * longer than `idleMs` mid-body (the connection is then closed: the rest of the body cannot be
 * told from a next request), and 422 `VALIDATION_ERROR` (`json_invalid`) when it does not parse.
 */
export async function readJsonBody(req: IncomingMessage, limit: number, idleMs = 30_000): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `The body must be JSON sent with 'Content-Type: application/json' (got ${req.headers['content-type'] ? `'${req.headers['content-type']}'` : 'no Content-Type'}).`,
    );
  }
  const tooLarge = () => new ApiError(413, 'REQUEST_TOO_LARGE', `The body is larger than the server's limit of ${limit} bytes; send fewer or smaller messages.`);
  if (Number(req.headers['content-length']) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  let stalled = false;
  await new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let verdict: NodeJS.Immediate | undefined;
    const disarm = () => {
      clearTimeout(timer);
      clearImmediate(verdict);
    };
    const arm = () => {
      disarm();
      // The verdict waits for the input already received: after the process stalled (a loaded
      // machine), the timer comes due before the bytes waiting in the socket have been read.
      timer = setTimeout(() => {
        verdict = setImmediate(() => {
          stalled = true;
          req.pause();
          resolve();
        });
      }, idleMs);
    };
    const done = (error?: Error) => {
      disarm();
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      arm();
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        // Past the limit nothing more is read: the 413 goes out and the connection closes.
        req.off('data', onData);
        req.pause();
        done();
      }
    };
    arm();
    req.on('data', onData);
    req.on('end', () => done());
    req.on('error', (error) => done(error));
  });
  if (stalled) throw new BodyTimeoutError(idleMs);
  if (size > limit) throw tooLarge();
  // A small body arrives in one chunk: no copy then.
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'parse error';
    throw validationError(`The body is not valid JSON (${reason}); send a JSON object.`, ['body'], 'json_invalid');
  }
}

/** A body that stalled: answered 408 on a connection that is then closed. */
export class BodyTimeoutError extends ApiError {
  constructor(idleMs: number) {
    super(408, 'REQUEST_TIMEOUT', `The request body stalled for ${idleMs} ms before it was complete; send it again in one go.`);
  }
}
