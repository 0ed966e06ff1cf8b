/**
 * Errors the API answers with: an HTTP status, a snake_case code and one sentence for people.
 */

/** A refusal or failure with its HTTP status and wire code. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The HTTP status for a run's error code (the code a graph run ended with). */
export function statusForRunError(code: string): number {
  switch (code) {
    case 'unknown_call_id':
    case 'missing_tool_results':
    case 'recursion_limit_exceeded':
      return 400;
    case 'thread_busy':
      return 409;
    case 'model_error':
      return 502;
    case 'aborted':
    case 'store_unavailable':
    case 'shutting_down':
      return 503;
    default:
      return 500;
  }
}
