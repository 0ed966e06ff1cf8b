/**
 * The log of `10xgraph api`, written with pino: one structured record per request, per remote
 * call emitted and per result answered, plus the start-up lines. Two formats: `pretty` prints
 * each record's message alone (the start-up lines read exactly as docs/spec.md §4 shows them), `json`
 * prints one JSON object a line with every field. Information goes to stdout, warnings and
 * errors to stderr (`json` through one pino multistream). Records never hold a token, a query string or a body.
 */
import { loadPino } from './lazy';
import { escapeControl, jsonTextForLog } from '../text/escapeControl';

/** The levels `--log-level` takes, most severe first. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];
/** The formats `--log-format` takes. */
export const LOG_FORMATS = ['pretty', 'json'] as const;
/** A log format. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The structured fields of a record (scalars only, so every format can print them). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/**
 * Where the server writes its log. `line` is the record's message for people; `fields` its
 * structured data (an `event` name and the values the message shows). Tests pass their own.
 */
export interface ApiLogger {
  info(line: string, fields?: LogFields): void;
  warn(line: string, fields?: LogFields): void;
  error(line: string, fields?: LogFields): void;
  debug?(line: string, fields?: LogFields): void;
}

/** Something text can be written to: `process.stdout`, a file stream, a test's collector. */
export interface TextSink {
  write(text: string): unknown;
}

/** How to build the logger. */
export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where information and debug records go (default stdout). */
  out?: TextSink;
  /** Where warnings and errors go (default stderr). */
  err?: TextSink;
}

/**
 * Builds the logger writing `format` to `out` (info, debug) and `err` (warn, error). `json` goes
 * through one pino logger and a pino multistream that sends each record to the sink of its level
 * (deduplicated: a warning reaches `err` alone), so nothing is swapped per call. A `pretty` record
 * is the message alone, written straight: no JSON record made for each line and read back, and
 * no pino loaded.
 */
export function createLogger(options: LoggerOptions = {}): ApiLogger {
  const format = options.format ?? 'pretty';
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const level = options.level ?? 'info';
  if (format === 'pretty') {
    // LOG_LEVELS runs from the most severe: a level is shown when it is at or above the threshold.
    const rank = (name: LogLevel) => LOG_LEVELS.indexOf(name);
    const at = (name: LogLevel) => {
      const sink = rank(name) <= rank('warn') ? err : out;
      // The line may quote what a client sent (a thread id) or a failure (a stack): escaped, so one
      // record stays one line and can forge no other line, CI command or terminal sequence.
      return rank(name) <= rank(level) ? (line: string): void => void sink.write(`${escapeControl(line)}\n`) : (): void => {};
    };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  }
  const pino = loadPino();
  // A record quotes what clients and files hold: written with JSON escapes for what a terminal or
  // a CI runner would act on (C1 controls, bidi controls, `##[`), the same record once parsed.
  const safe = (sink: TextSink) => ({ write: (record: string) => void sink.write(jsonTextForLog(record)) });
  const streams = pino.multistream(
    [
      { level: 'debug', stream: safe(out) },
      { level: 'warn', stream: safe(err) },
    ],
    { dedupe: true },
  );
  const logger = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, streams);
  const at = (name: LogLevel) => {
    const write = logger[name].bind(logger);
    return (line: string, fields?: LogFields): void => (fields ? write(fields, line) : write(line));
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** Reads `--log-level`; undefined when it is not a level. */
export function parseLogLevel(value: string): LogLevel | undefined {
  return (LOG_LEVELS as readonly string[]).includes(value) ? (value as LogLevel) : undefined;
}

/** Reads `--log-format`; undefined when it is not a format. */
export function parseLogFormat(value: string): LogFormat | undefined {
  return (LOG_FORMATS as readonly string[]).includes(value) ? (value as LogFormat) : undefined;
}
