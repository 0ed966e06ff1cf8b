/**
 * Errors of the graph library. Each carries a stable `code`, because callers (the API server,
 * possibly from another copy of this library) recognise errors by code, never by class.
 */

/** An error with a stable code. */
export class GraphError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'GraphError';
    this.code = code;
  }
}

/**
 * `attachRemoteTools` refused its arguments. The codes are the rule set's
 * (`node-not-found`, `node-not-tool-node`, `name-conflicts-with-server-tool`), so start-up and
 * the editor say the same thing.
 */
export class AttachRemoteToolsError extends GraphError {
  constructor(code: 'node-not-found' | 'node-not-tool-node' | 'name-conflicts-with-server-tool', message: string) {
    super(code, message);
    this.name = 'AttachRemoteToolsError';
  }
}

/** The graph was built wrongly (an edge to a missing node, no entry point, ...). */
export class GraphDefinitionError extends GraphError {
  constructor(message: string) {
    super('invalid_graph', message);
    this.name = 'GraphDefinitionError';
  }
}

/**
 * A run was refused or failed. Codes follow the API's error codes: `unknown_call_id`,
 * `missing_tool_results`, `recursion_limit_exceeded`, `model_error`, `node_failed`, `invalid_edge_target`.
 */
export class GraphRunError extends GraphError {
  constructor(code: string, message: string) {
    super(code, message);
    this.name = 'GraphRunError';
  }
}

/** Reads the `code` of anything thrown, whichever copy of this library threw it. */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return undefined;
}

/** Reads the message of anything thrown. */
export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}
