/** Logging to the connection's console, and the guard that keeps an error from escaping a handler. */
import { type Connection, ResponseError } from 'vscode-languageserver';

/** Logging to the connection's console. */
export interface Logger {
  log(message: string): void;
  /** Logs that `where` failed, with the error's stack. */
  logError(where: string, error: unknown): void;
}

/** Wraps a handler so that an error is logged and answered with `fallback` (a `ResponseError` goes to the client as it is). */
export type Guard = <P extends unknown[], R>(where: string, fallback: R, handler: (...args: P) => R | Promise<R>) => (...args: P) => Promise<R>;

/** A logger on `connection`'s console. */
export function createLogger(connection: Connection): Logger {
  return {
    log: (message) => connection.console.log(message),
    logError(where, error) {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      connection.console.error(`10xgraph: ${where} failed: ${text}`);
    },
  };
}

/** A `Guard` that logs to `logger`. */
export function createGuard(logger: Logger): Guard {
  return (where, fallback, handler) =>
    async (...args) => {
      try {
        return await handler(...args);
      } catch (error) {
        if (error instanceof ResponseError) throw error;
        logger.logError(where, error);
        return fallback;
      }
    };
}
