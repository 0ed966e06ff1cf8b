/**
 * Every failure the client reports: an API error envelope (with its HTTP status, code and
 * message), an unreachable server, a malformed answer, or the remote-tool loop's limit.
 */
export class TenxGraphError extends Error {
  /** The HTTP status, or 0 when no HTTP answer was involved (network, WebSocket, client-side limit). */
  readonly status: number;
  /** A snake_case code: the server's (`thread_busy`, `unknown_call_id`, …) or the client's own. */
  readonly code: string;
  /** The `metadata.request_id` of the failed answer, when the server sent one. */
  readonly requestId?: string;
  /** The thread the failure happened on, when known. */
  readonly threadId?: string;

  constructor(status: number, code: string, message: string, extra: { requestId?: string; threadId?: string } = {}) {
    super(message);
    this.name = 'TenxGraphError';
    this.status = status;
    this.code = code;
    if (extra.requestId !== undefined) this.requestId = extra.requestId;
    if (extra.threadId !== undefined) this.threadId = extra.threadId;
  }
}

/** Codes the client itself uses, besides those of the server. */
export const CLIENT_ERROR_CODES = {
  /** fetch rejected or the WebSocket would not open: the server is not reachable. */
  network: 'network_error',
  /** The WebSocket closed while a request was running on it. */
  connectionClosed: 'connection_closed',
  /** The answer was not the API's envelope or chunk format. */
  unexpectedResponse: 'unexpected_response',
  /** A stream ended before its `end` chunk. */
  streamIncomplete: 'stream_incomplete',
  /** The remote-tool loop ran `recursion_limit` rounds and the thread still waits on calls. */
  recursionLimit: 'recursion_limit_exceeded',
  /** No fetch or WebSocket implementation is available. */
  unsupported: 'unsupported_environment',
} as const;
