/**
 * Errors the API answers with: an HTTP status, an UPPER_SNAKE_CASE code (the real 10xGraph
 * server's where it has one: `VALIDATION_ERROR`, `INVALID_TOKEN`, `RESOURCE_NOT_FOUND`,
 * `REQUEST_TOO_LARGE`, `TRANSIENT_STORAGE_ERROR`, …), one sentence for people and the
 * `details` of a refused request (where, what, which kind), as docs/spec.md §4 lists them.
 */
import type { ErrorDetail } from '10xgraph-client/wire';

/** A refusal or failure with its HTTP status, wire code and details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  /** Headers the answer carries (`WWW-Authenticate` of a 401, `Retry-After` of a 429). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, details: ErrorDetail[] = [], headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** The 422 `VALIDATION_ERROR` of a request, with one detail at `loc` (`['body', 'messages', 0, 'role']`). */
export function validationError(message: string, loc: Array<string | number>, type = 'value_error'): ApiError {
  return new ApiError(422, 'VALIDATION_ERROR', message, [{ loc, msg: message, type }]);
}

/** A run's error on the wire: the graph's code (`unknown_call_id`, …) as the API's code and status. */
export function runErrorOf(code: string): { status: number; code: string } {
  switch (code) {
    case 'unknown_call_id':
      return { status: 422, code: 'UNKNOWN_CALL_ID' };
    case 'missing_tool_results':
      return { status: 422, code: 'MISSING_TOOL_RESULTS' };
    case 'recursion_limit_exceeded':
      // GRAPH_RECURSION_* is the family clients map to a recursion error.
      return { status: 400, code: 'GRAPH_RECURSION_LIMIT_EXCEEDED' };
    case 'model_error':
      return { status: 502, code: 'NODE_MODEL_ERROR' };
    case 'node_failed':
      return { status: 500, code: 'NODE_FAILED' };
    case 'invalid_edge_target':
      return { status: 500, code: 'GRAPH_INVALID_EDGE_TARGET' };
    case 'aborted':
      return { status: 503, code: 'RUN_ABORTED' };
    default:
      return { status: statusOfCode(code), code: /^[A-Z0-9_]+$/.test(code) ? code : code.toUpperCase().replace(/[^A-Z0-9]+/g, '_') };
  }
}

/** The status of an API code a run can end with. */
function statusOfCode(code: string): number {
  switch (code) {
    case 'THREAD_BUSY':
      return 409;
    case 'TRANSIENT_STORAGE_ERROR':
    case 'SHUTTING_DOWN':
      return 503;
    default:
      return 500;
  }
}

/** The HTTP status for a run's error code. */
export function statusForRunError(code: string): number {
  return runErrorOf(code).status;
}
