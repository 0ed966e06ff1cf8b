/** Logging to the connection's console, and the guard that keeps an error from escaping a handler. */
import { type Connection, ResponseError } from 'vscode-languageserver';
import { escapeControl } from '10xgraph/rules';

/** Logging to the connection's console. */
export interface Logger {
  log(message: string): void;
  /** Logs that `where` failed, with the error's stack. */
  logError(where: string, error: unknown): void;
}

/** Wraps a handler so that an error is logged and answered with `fallback` (a `ResponseError` goes to the client as it is). */
export type Guard = <P extends unknown[], R>(where: string, fallback: R, handler: (...args: P) => R | Promise<R>) => (...args: P) => Promise<R>;

/**
 * A message for the person, made safe to show: it may quote a file, a setting or a server's
 * answer, so controls are escaped (one line, no terminal sequence, no reordering), a Markdown link
 * `[text](target)` is broken (`]\(`: notifications turn links, `command:` ones included, into
 * buttons), and it is cut at 1,000 characters.
 */
export function plainMessage(text: string): string {
  const escaped = escapeControl(text).replaceAll('](', ']\\(');
  return escaped.length > 1000 ? `${escaped.slice(0, 1000)}…` : escaped;
}

/** A logger on `connection`'s console. */
export function createLogger(connection: Connection): Logger {
  return {
    log: (message) => connection.console.log(plainMessage(message)),
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
