/**
 * Raw HTTP on loopback for the API fuzz: any method, path, header and body `node:http` can
 * frame (no client library smoothing anything), and raw bytes over TCP for what it cannot.
 */
import { request } from 'node:http';
import { connect } from 'node:net';

/** A request as the fuzz builds it. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with chunked transfer coding in pieces of this size, rather than with a Content-Length. */
  chunkSize?: number;
}

/** An answer: status, headers and the whole body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sends one request on a fresh connection and reads the whole answer. */
export function sendRaw(port: number, req: RawRequest, timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && req.chunkSize === undefined) headers['content-length'] = String(req.body.length);
    if (req.body !== undefined && req.chunkSize !== undefined) headers['transfer-encoding'] = 'chunked';
    const outgoing = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no answer to ${req.method} ${req.path} within ${timeoutMs} ms`));
    }, timeoutMs);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    if (req.body !== undefined && req.chunkSize !== undefined) {
      for (let at = 0; at < req.body.length; at += req.chunkSize) outgoing.write(req.body.subarray(at, at + req.chunkSize));
    } else if (req.body !== undefined) outgoing.write(req.body);
    outgoing.end();
  });
}

/** Writes raw bytes to the server, half-closes, and resolves with every byte it answered. */
export function exchangeRaw(port: number, bytes: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (text: string) => {
      answer += text;
      // One whole answer is enough: stop once a body of known length is complete (else wait for the close).
      const head = answer.indexOf('\r\n\r\n');
      const length = head < 0 ? undefined : /\r\ncontent-length: *(\d+)/i.exec(answer.slice(0, head))?.[1];
      if (head >= 0 && length !== undefined && answer.length >= head + 4 + Number(length)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (answer) resolve(answer);
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

/** Splits a raw HTTP answer into status, lower-cased headers and body. */
export function parseRawAnswer(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const head = raw.indexOf('\r\n\r\n');
  const lines = raw.slice(0, head < 0 ? raw.length : head).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: head < 0 ? '' : raw.slice(head + 4) };
}
