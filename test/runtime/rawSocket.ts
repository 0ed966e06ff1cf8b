/**
 * Raw HTTP for the origin, CORS and socket tests: any Host, Origin or subprotocol header
 * (fetch and WebSocket clients set or forbid some of them), WebSocket handshakes read byte by
 * byte, and a log that keeps every line a server writes.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { ApiLogger, LogFields } from '../../runtime/src/api/log';

/** An answer: status, lower-cased headers, body text. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request on a fresh connection (headers exactly as given, Host included) and reads the answer. */
export function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }, agent: false, setHost: !('host' in headers) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

/** The `access-control-*` headers of an answer. */
export function corsHeadersOf(answer: Answer): Record<string, string> {
  return Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-')).map(([name, value]) => [name, String(value)]));
}

/** A WebSocket handshake's outcome: the status line's code and the headers of the answer. */
export interface Handshake {
  status: number;
  headers: Record<string, string>;
  /** The socket, open after a 101; the caller destroys it. */
  socket: Socket;
  /**
   * Resolves once the server has let go of the connection: after its FIN, a byte written back
   * is answered with a reset only when the server destroyed its socket (a half-open socket on
   * the server would take it silently, and never close).
   */
  closed: Promise<void>;
}

/** Sends a WebSocket upgrade with exactly these headers (Host and Origin included) and reads the answer's head. */
export function handshake(port: number, path: string, headers: Record<string, string>): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('end', () => {
      // Probe twice: the first write may land before the server's close has been processed.
      socket.write('x');
      setTimeout(() => !socket.destroyed && socket.write('x'), 50).unref();
    });
    let head = '';
    const lines = Object.entries({ connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.on('error', () => {});
    socket.setEncoding('latin1');
    const onData = (text: string) => {
      head += text;
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [statusLine, ...rest] = head.slice(0, end).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of rest) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers: parsed, socket, closed });
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`the server closed the connection before answering the upgrade: ${JSON.stringify(head)}`)));
    socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`, 'latin1');
  });
}

/**
 * Resolves with true once `closed` settles, false after `ms`: a bound on the wait for a server to
 * drop a connection, so a server that keeps it fails the test instead of hanging it.
 */
export async function closesWithin(closed: Promise<void>, ms = 5000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([closed.then(() => true), bound]).finally(() => clearTimeout(timer));
}

/** One line a server logged: its level, message and fields. */
export interface LoggedLine {
  level: 'info' | 'warn' | 'error' | 'debug';
  line: string;
  fields?: LogFields;
}

/** A logger that keeps every line, for tests that assert what the server logs. */
export class CapturedLog implements ApiLogger {
  readonly lines: LoggedLine[] = [];
  info(line: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', line, ...(fields ? { fields } : {}) });
  }
  warn(line: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', line, ...(fields ? { fields } : {}) });
  }
  error(line: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', line, ...(fields ? { fields } : {}) });
  }
  debug(line: string, fields?: LogFields): void {
    this.lines.push({ level: 'debug', line, ...(fields ? { fields } : {}) });
  }
  /** Every line with its fields, as one text to search. */
  text(): string {
    return this.lines.map((entry) => `${entry.line} ${JSON.stringify(entry.fields ?? {})}`).join('\n');
  }
  /** The lines whose text or fields contain `needle`. */
  mentioning(needle: string): LoggedLine[] {
    return this.lines.filter((entry) => entry.line.includes(needle) || JSON.stringify(entry.fields ?? {}).includes(needle));
  }
}
