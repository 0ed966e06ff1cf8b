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
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        agent: false,
        setHost: !('host' in headers),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

/** The `access-control-*` headers of an answer. */
export function corsHeadersOf(answer: Answer): Record<string, string> {
  return Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => name.startsWith('access-control-'))
      .map(([name, value]) => [name, String(value)]),
  );
}

/** A WebSocket handshake's outcome: the status line's code and the headers of the answer. */
export interface Handshake {
  status: number;
  headers: Record<string, string>;
  /** The socket, open after a 101; the caller destroys it. */
  socket: Socket;
  /** Bytes the server sent after the head (the first frames, if any). */
  rest: Buffer;
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
    socket.once('end', () => probeUntilClosed(socket));
    let head = Buffer.alloc(0);
    const lines = Object.entries({ connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.on('error', () => {});
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [statusLine, ...rest] = head.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
      // An open WebSocket is read by whoever takes it; a refusal's body is read and dropped, so its close is seen.
      if (status === 101) socket.pause();
      else socket.resume();
      const parsed: Record<string, string> = {};
      for (const line of rest) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status, headers: parsed, socket, rest: head.subarray(end + 4), closed });
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`the server closed the connection before answering the upgrade: ${JSON.stringify(head.toString('latin1'))}`)));
    socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`, 'latin1');
  });
}

/**
 * After the server's FIN, writes a byte now and every 50 ms until the socket closes: a byte is
 * answered with a reset once the server has destroyed its socket, however late (on a loaded
 * machine) that comes; a server that keeps its side half-open takes the bytes silently, and the
 * socket never closes.
 */
export function probeUntilClosed(socket: Socket): void {
  socket.write('x');
  const probe = setInterval(() => (socket.destroyed ? clearInterval(probe) : socket.write('x')), 50);
  probe.unref();
  socket.once('close', () => clearInterval(probe));
}

/** A client text frame (masked, as RFC 6455 requires of clients). */
export function clientFrame(text: string, opcode = 0x1): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const length =
    payload.length < 126
      ? Buffer.from([0x80 | payload.length])
      : payload.length < 65536
        ? Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | 127, 0, 0, 0, 0]),
            (() => {
              const b = Buffer.alloc(4);
              b.writeUInt32BE(payload.length);
              return b;
            })(),
          ]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked]);
}

/**
 * A WebSocket spoken by hand over an upgraded socket: it sends masked text frames and reads the
 * server's frames, and answers nothing by itself (no pong), so a test can play a client that
 * never answers pings or never reads.
 */
export class RawWebSocket {
  readonly frames: Array<{ opcode: number; payload: Buffer }> = [];
  private buffer: Buffer;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly shake: Handshake,
    options: { read?: boolean } = {},
  ) {
    this.buffer = shake.rest;
    if (options.read !== false) {
      shake.socket.on('data', (chunk: Buffer) => {
        this.buffer = Buffer.concat([this.buffer, chunk]);
        this.parse();
      });
      shake.socket.resume();
      this.parse();
    }
    shake.socket.on('close', () => this.wake());
  }

  /** Sends a text frame. */
  send(text: string): void {
    this.shake.socket.write(clientFrame(text));
  }

  /** The JSON text frames received so far. */
  chunks(): any[] {
    return this.frames.filter((frame) => frame.opcode === 0x1).map((frame) => JSON.parse(frame.payload.toString('utf8')));
  }

  /** Resolves once `probe` holds on the frames received (checked after each frame), or rejects after `ms`. */
  async until(what: string, probe: () => boolean, ms = 10_000): Promise<void> {
    if (probe()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      const check = () => {
        if (!probe()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  private parse(): void {
    for (;;) {
      if (this.buffer.length < 2) break;
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) break;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) break;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) break;
      this.frames.push({ opcode, payload: this.buffer.subarray(offset, offset + length) });
      this.buffer = this.buffer.subarray(offset + length);
    }
    this.wake();
  }

  private wake(): void {
    for (const check of [...this.waiters]) check();
  }
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
