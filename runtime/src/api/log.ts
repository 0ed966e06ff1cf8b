/**
 * The log of `10xgraph api`, written with pino: one structured record per request, per remote
 * call emitted and per result answered, plus the start-up lines. Two formats: `pretty` prints
 * each record's message alone (the start-up lines read exactly as docs/spec.md §4 shows them), `json`
 * prints one JSON object a line with every field. Information goes to stdout, warnings and
 * errors to stderr. Records never hold a token, a query string or a body.
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

const WARN = 40;
/** pino's numbers of the levels. */
const LEVEL_VALUES: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/** Builds a pino logger writing `format` to `out` (info, debug) and `err` (warn, error). */
export function createLogger(options: LoggerOptions = {}): ApiLogger {
  const format = options.format ?? 'pretty';
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const threshold = LEVEL_VALUES[options.level ?? 'info'];
  const sinkOf = (level: LogLevel): TextSink => (LEVEL_VALUES[level] >= WARN ? err : out);
  if (format === 'pretty') {
    // A pretty line is the message alone: written straight, with no JSON record made and read back.
    // It may quote what a client sent (a thread id) or a failure (a stack): escaped, so one record
    // stays one line and can forge no other line, CI command or terminal sequence.
    const at = (level: LogLevel) => {
      const sink = sinkOf(level);
      const shown = LEVEL_VALUES[level] >= threshold;
      return (line: string): void => {
        if (shown) sink.write(`${escapeControl(line)}\n`);
      };
    };
    return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  }
  // pino writes each record synchronously into `destination`, right after the call below names
  // its level: the record goes to that level's stream without being parsed again.
  let sink: TextSink = out;
  const destination = {
    write(record: string) {
      sink.write(record);
    },
  };
  const pino = loadPino();
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
  const at = (level: LogLevel) => {
    const target = sinkOf(level);
    return (line: string, fields?: LogFields): void => {
      sink = target;
      if (fields) logger[level](fields, line);
      else logger[level](line);
    };
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
