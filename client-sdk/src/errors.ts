/**
 * Every failure the client reports: an API error envelope (with its HTTP status, code and
 * message), an unreachable server, a malformed answer, or the remote-tool loop's limit.
 */
export class TenxGraphError extends Error {
  /** The HTTP status, or 0 when no HTTP answer was involved (network, WebSocket, client-side limit). */
  readonly status: number;
  /** An UPPER_SNAKE_CASE code: the server's (`THREAD_BUSY`, `VALIDATION_ERROR`, …) or the client's own (`CLIENT_ERROR_CODES`). */
  readonly code: string;
  /** The server's `error.details`: where and what, one entry per problem (empty when it sent none). */
  readonly details: ReadonlyArray<{ loc: Array<string | number>; msg: string; type: string }>;
  /** The `metadata.request_id` of the failed answer, when the server sent one. */
  readonly requestId?: string;
  /** The thread the failure happened on, when known. */
  readonly threadId?: string;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { requestId?: string; threadId?: string; details?: ReadonlyArray<{ loc: Array<string | number>; msg: string; type: string }> } = {},
  ) {
    super(message);
    this.name = 'TenxGraphError';
    this.status = status;
    this.code = code;
    this.details = extra.details ?? [];
    if (extra.requestId !== undefined) this.requestId = extra.requestId;
    if (extra.threadId !== undefined) this.threadId = extra.threadId;
  }
}

/** Codes the client itself uses, besides those of the server. */
export const CLIENT_ERROR_CODES = {
  /** fetch rejected or the WebSocket would not open: the server is not reachable. */
  network: 'NETWORK_ERROR',
  /** The WebSocket closed while a request was running on it. */
  connectionClosed: 'CONNECTION_CLOSED',
  /** The answer was not the API's envelope or chunk format. */
  unexpectedResponse: 'UNEXPECTED_RESPONSE',
  /** The remote-tool loop ran `recursion_limit` rounds and the thread still waits on calls. */
  recursionLimit: 'RECURSION_LIMIT_EXCEEDED',
  /** No fetch or WebSocket implementation is available. */
  unsupported: 'UNSUPPORTED_ENVIRONMENT',
} as const;
