/**
 * Bodies are at most 1 MiB on every request: a request the server answers without its body (an
 * unknown route, a wrong method, a refused origin, a missing token, a thread read) or whose body
 * is past the limit is answered with `Connection: close`, and the connection ends without the
 * rest being read, whether the body declares 2 GiB or comes in chunks that never end.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { createApiServer, type ApiServer } from '../../runtime/src/api/index';
import { buildTestGraph } from './serverHelpers';
import { poll } from '../support/poll';

const TOKEN = 'bodies-t0ken';
const MiB = 1024 * 1024;
/** What the client writes at most: a server that reads everything is caught here, not after 2 GiB. */
const WRITE_CAP = 64 * MiB;
/** What a client may have written before the close: its own send buffer and the server's receive buffer hold some MiB. */
const WRITTEN_BOUND = 8 * MiB;
/** What the server may have read off the connection: the limit (1 MiB) and a little. */
const READ_BOUND = 2 * MiB;

/** How the body goes: a Content-Length of 2 GiB, or chunks that never end. */
type Framing = 'content-length' | 'chunked';

interface Outcome {
  /** What the server sent back, as latin1 text. */
  answer: string;
  /** Body bytes the client's socket took (their write callbacks ran) before the connection ended. */
  written: number;
  /** Whether the client stopped at WRITE_CAP because the server went on reading. */
  capped: boolean;
}

/**
 * Sends the head and then body bytes as fast as the server takes them, until the connection ends
 * (a close or a reset) or WRITE_CAP is reached. The socket is half-open capable: a server that
 * sends its FIN but goes on reading is still written to, and so caught by the cap.
 */
function sendEndless(port: number, head: string, framing: Framing): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let written = 0;
    let capped = false;
    let ended = false;
    socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
    socket.on('error', () => {});
    socket.once('close', () => {
      ended = true;
      resolve({ answer, written, capped });
    });
    const payload = Buffer.alloc(64 * 1024, 'x');
    const piece = framing === 'chunked' ? Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]) : payload;
    let offered = 0;
    const pump = () => {
      while (!ended && !socket.destroyed) {
        if (offered >= WRITE_CAP) {
          capped = true;
          socket.destroy();
          return;
        }
        offered += piece.length;
        const more = socket.write(piece, (error) => {
          if (!error) written += piece.length;
        });
        if (!more) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    const framingHeader = framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${2 * 1024 * MiB}`;
    socket.write(`${head}content-type: application/json\r\n${framingHeader}\r\n\r\n`, 'latin1');
    pump();
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);
}

describe('bodies the server does not need are never read', () => {
  let api: ApiServer;
  let port: number;
  const reads: Socket[] = [];
  before(async () => {
    api = createApiServer({ graph: buildTestGraph(), token: TOKEN, corsOrigins: [], allowedHosts: [], log: { info() {}, warn() {}, error() {} } });
    api.server.on('connection', (socket: Socket) => reads.push(socket));
    port = Number(new URL(await api.listen(0, '127.0.0.1')).port);
  });
  after(() => api.close());

  const host = () => `host: 127.0.0.1:${port}\r\n`;
  const auth = `authorization: Bearer ${TOKEN}\r\n`;
  const cases: Array<{ what: string; head: () => string; status: number; body: RegExp }> = [
    { what: 'an unknown route', head: () => `POST /nowhere HTTP/1.1\r\n${host()}${auth}`, status: 404, body: /"code":"NOT_FOUND"/ },
    { what: 'a wrong method', head: () => `PUT /v1/graph HTTP/1.1\r\n${host()}${auth}`, status: 405, body: /"code":"METHOD_NOT_ALLOWED"/ },
    { what: 'a refused origin', head: () => `POST /v1/graph/invoke HTTP/1.1\r\n${host()}${auth}origin: http://evil.example\r\n`, status: 403, body: /"code":"ORIGIN_NOT_ALLOWED"/ },
    { what: 'a missing token', head: () => `POST /v1/graph/invoke HTTP/1.1\r\n${host()}`, status: 401, body: /"code":"INVALID_TOKEN"/ },
    { what: 'a thread read (GET, answered)', head: () => `GET /v1/threads/nobody HTTP/1.1\r\n${host()}${auth}`, status: 200, body: /"thread":null/ },
    { what: 'a thread read (GET, refused)', head: () => `GET /v1/threads/nobody/messages/m-1 HTTP/1.1\r\n${host()}${auth}`, status: 404, body: /"code":"RESOURCE_NOT_FOUND"/ },
    { what: 'a stop past the body limit', head: () => `POST /v1/graph/stop HTTP/1.1\r\n${host()}${auth}`, status: 413, body: /"code":"REQUEST_TOO_LARGE"/ },
    { what: 'a run past the body limit', head: () => `POST /v1/graph/invoke HTTP/1.1\r\n${host()}${auth}`, status: 413, body: /"code":"REQUEST_TOO_LARGE"/ },
  ];

  for (const framing of ['content-length', 'chunked'] as const) {
    for (const { what, head, status, body } of cases) {
      test(`${what}, body ${framing === 'chunked' ? 'in endless chunks' : 'of 2 GiB declared'}: answered ${status}, then closed with little read`, async () => {
        const before = reads.length;
        const outcome = await sendEndless(port, head(), framing);
        assert.equal(outcome.capped, false, `the server read ${WRITE_CAP} bytes of a body it does not need and still did not close the connection`);
        assert.equal(statusOf(outcome.answer), status, outcome.answer.slice(0, 300));
        assert.match(outcome.answer, body);
        assert.match(outcome.answer, /\r\nconnection: close\r\n/i);
        assert.ok(outcome.written < WRITTEN_BOUND, `the client wrote ${outcome.written} bytes before the close`);
        const server = reads[before];
        assert.ok(server, 'the server saw the connection');
        assert.ok(server.bytesRead < READ_BOUND, `the server read ${server.bytesRead} bytes of the connection`);
      });
    }
  }

  test('refusals without a body, or with a small one (read and dropped), keep their connection', async () => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', () => {});
    let answer = '';
    socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
    const get = `GET /nowhere HTTP/1.1\r\n${host()}${auth}\r\n`;
    const post = `DELETE /v1/threads/nobody HTTP/1.1\r\n${host()}${auth}content-length: 0\r\n\r\n`;
    const small = `POST /nowhere HTTP/1.1\r\n${host()}${auth}content-type: application/json\r\ncontent-length: 1000\r\n\r\n${'x'.repeat(1000)}`;
    socket.write(get + post + small + get);
    try {
      await poll('four answers on one connection', () => [...answer.matchAll(/HTTP\/1\.1 404 /g)].length === 4, 10_000);
      assert.doesNotMatch(answer, /\r\nconnection: close\r\n/i);
    } finally {
      socket.destroy();
    }
  });
});
