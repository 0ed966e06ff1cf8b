/**
 * The log of `10xgraph api`, written with pino: one structured record per request, per remote
 * call emitted and per result answered, plus the start-up lines. Two formats: `pretty` prints
 * each record's message alone (the start-up lines read exactly as docs/spec.md §4 shows them), `json`
 * prints one JSON object a line with every field. Information goes to stdout, warnings and
 * errors to stderr, through one pino multistream. Records never hold a token, a query string or a body.
 */
import { loadPino } from './lazy';
import { escapeControl } from '../text/escapeControl';

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
 * Builds a pino logger writing `format` to `out` (info, debug) and `err` (warn, error). Both
 * formats go through one pino logger and a pino multistream that sends each record to the sink
 * of its level (deduplicated: a warning reaches `err` alone), so nothing is swapped per call.
 */
export function createLogger(options: LoggerOptions = {}): ApiLogger {
  const format = options.format ?? 'pretty';
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const pino = loadPino();
  const pretty = format === 'pretty';
  // A pretty record is the message alone: pino makes `{"level":30,"msg":...}` (no time or fields),
  // and the line written is that message. It may quote what a client sent (a thread id) or a
  // failure (a stack): escaped, so one record stays one line and can forge no other line, CI
  // command or terminal sequence.
  const sinkFor = (sink: TextSink): TextSink => (pretty ? { write: (record: string) => sink.write(`${escapeControl((JSON.parse(record) as { msg: string }).msg)}\n`) } : sink);
  const streams = pino.multistream(
    [
      { level: 'debug', stream: sinkFor(out) },
      { level: 'warn', stream: sinkFor(err) },
    ],
    { dedupe: true },
  );
  const logger = pino(
    pretty ? { level: options.level ?? 'info', base: undefined, timestamp: false } : { level: options.level ?? 'info', base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
    streams,
  );
  const at = (level: LogLevel) => {
    const write = logger[level].bind(logger);
    if (pretty) return (line: string): void => write(line);
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
