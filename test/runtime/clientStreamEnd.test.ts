// The client reads a stream's body to its end: the real 10xGraph stream has no end chunk, the body
// just ends. Every chunk is yielded however the body is cut into packets, and the body is read out
// rather than cancelled (a cancelled fetch body is what browsers report as net::ERR_ABORTED); a
// caller that stops early cancels it at once; a body that ends, or whose connection drops, in the
// middle of a line is an error, never a quiet end of the stream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLIENT_ERROR_CODES, TenxGraphClient, TenxGraphError } from '../../client-sdk/src';
import type { FetchLike, StreamChunk } from '../../client-sdk/src';

/** A stream chunk of the real wire (every key present) carrying one assistant text message. */
function chunkLine(id: string, text: string): string {
  return `${JSON.stringify({
    event: 'message',
    message: { message_id: id, role: 'assistant', content: [{ type: 'text', text }], delta: false },
    state: null,
    data: null,
    thread_id: 't1',
    run_id: 'r1',
    metadata: { thread_id: 't1', is_new_thread: true },
    timestamp: 1,
  })}\n`;
}

/** Texts with multi-byte characters, so a piece boundary can fall inside one. */
const TEXTS = ['Hel', 'lo, café', ' ☕ and 𝄞', 'done'];

/** A client whose fetch answers the stream with `body`, recording nothing else. */
function clientWithBody(body: ReadableStream<Uint8Array>): TenxGraphClient {
  const fetch: FetchLike = async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  return new TenxGraphClient({ baseUrl: 'http://127.0.0.1:9', fetch });
}

/** A body that hands on `bytes` in pieces of `size` bytes, one piece per read, then ends; it records how it stopped. */
function piecewiseBody(bytes: Uint8Array, size: number): { body: ReadableStream<Uint8Array>; ended: () => boolean; cancelled: () => boolean } {
  let offset = 0;
  let ended = false;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        ended = true;
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, ended: () => ended, cancelled: () => cancelled };
}

function idsOf(chunks: StreamChunk[]): string[] {
  return chunks.flatMap((chunk) => (chunk.message ? [chunk.message.message_id] : []));
}

describe('the client reads a stream body to its end', () => {
  for (const size of [1, 7, 1 << 20]) {
    test(`every chunk is yielded, in order and whole, from pieces of ${size === 1 << 20 ? 'the whole body' : `${size} bytes`}; the body is read out, not cancelled`, async () => {
      // The last line has no newline: the body's end ends it.
      const text = TEXTS.map((piece, i) => chunkLine(`m${i}`, piece))
        .join('')
        .trimEnd();
      const { body, ended, cancelled } = piecewiseBody(new TextEncoder().encode(text), size);
      const chunks: StreamChunk[] = [];
      for await (const chunk of clientWithBody(body).stream('hi')) chunks.push(chunk);
      assert.deepEqual(idsOf(chunks), ['m0', 'm1', 'm2', 'm3']);
      assert.deepEqual(
        chunks.map((chunk) => chunk.message?.content),
        TEXTS.map((piece) => [{ type: 'text', text: piece }]),
      );
      assert.equal(ended(), true, 'the body was read to its end');
      assert.equal(cancelled(), false, 'the body was not cancelled');
    });
  }

  test('a caller that stops early cancels a body that has not ended, at once', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(chunkLine('m0', 'first')));
      },
      // Never more, never an end: only a cancel frees it.
      pull: () => new Promise<void>(() => {}),
      cancel() {
        cancelled = true;
      },
    });
    const seen: string[] = [];
    for await (const chunk of clientWithBody(body).stream('hi')) {
      seen.push(chunk.message?.message_id ?? chunk.event);
      break;
    }
    assert.deepEqual(seen, ['m0']);
    assert.equal(cancelled, true);
  });
});

describe('a stream body cut in the middle of a line', () => {
  let server: Server;
  let baseUrl: string;
  /** How the server ends the answer after half a line: a clean end of the body, or a dropped connection. */
  let cut: (res: ServerResponse) => void = (res) => res.end();

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        res.write(chunkLine('m0', 'whole'));
        // Half of the next line, flushed before the cut.
        res.write(chunkLine('m1', 'never whole').slice(0, 40), () => cut(res));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Streams from the server; resolves to the message ids yielded and the error the stream ended with. */
  async function streamUntilError(): Promise<{ ids: string[]; error: unknown }> {
    const ids: string[] = [];
    try {
      for await (const chunk of new TenxGraphClient({ baseUrl }).stream('hi', { config: { thread_id: 't1' } })) ids.push(chunk.message?.message_id ?? chunk.event);
    } catch (error) {
      return { ids, error };
    }
    return assert.fail(`the stream ended without an error after ${JSON.stringify(ids)}`);
  }

  const cutCodes: readonly string[] = [CLIENT_ERROR_CODES.network, CLIENT_ERROR_CODES.unexpectedResponse];

  test('a body that ends there is an UNEXPECTED_RESPONSE, after the whole chunks before it', async () => {
    cut = (res) => res.end();
    const { ids, error } = await streamUntilError();
    assert.deepEqual(ids, ['m0']);
    assert.ok(error instanceof TenxGraphError, `expected a TenxGraphError, got ${String(error)}`);
    assert.equal(error.code, CLIENT_ERROR_CODES.unexpectedResponse);
    assert.equal(error.status, 0);
  });

  test('a connection that drops there is a TenxGraphError (NETWORK_ERROR or UNEXPECTED_RESPONSE), after the whole chunks before it', async () => {
    cut = (res) => res.destroy();
    const { ids, error } = await streamUntilError();
    assert.deepEqual(ids, ['m0']);
    assert.ok(error instanceof TenxGraphError, `expected a TenxGraphError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    assert.ok(cutCodes.includes(error.code), error.code);
    assert.equal(error.status, 0);
  });
});
