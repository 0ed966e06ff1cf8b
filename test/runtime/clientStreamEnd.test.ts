// The client's NDJSON reader once a stream's end chunk has come: it reads the body to its end
// rather than cancelling it (a cancelled fetch body is what browsers report as net::ERR_ABORTED),
// and still cancels a body that does not end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readNdjson } from '../../client-sdk/src/chunks';

const END = `${JSON.stringify({ event: 'end', data: { thread_id: 't1', status: 'completed' } })}\n`;

/** A body that sends the end chunk, then ends after `endAfterMs` (never, when undefined); it records a cancel. */
function bodyOf(endAfterMs: number | undefined): { body: ReadableStream<Uint8Array>; cancelled: () => boolean; ended: () => boolean } {
  let cancelled = false;
  let ended = false;
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(END));
        return;
      }
      if (endAfterMs === undefined) return new Promise<void>(() => {});
      await new Promise((resolve) => setTimeout(resolve, endAfterMs));
      ended = true;
      controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled, ended: () => ended };
}

test('after the end chunk, a body that ends soon is read to its end, not cancelled', async () => {
  const { body, cancelled, ended } = bodyOf(30);
  for await (const chunk of readNdjson(body, 'test stream')) {
    if (chunk.event === 'end') break;
  }
  assert.equal(ended(), true, 'the body was read to its end');
  assert.equal(cancelled(), false, 'the body was not cancelled');
});

test('after the end chunk, a body that does not end is cancelled within a second or so', async () => {
  const { body, cancelled } = bodyOf(undefined);
  const started = Date.now();
  for await (const chunk of readNdjson(body, 'test stream')) {
    if (chunk.event === 'end') break;
  }
  assert.equal(cancelled(), true);
  assert.ok(Date.now() - started < 3_000, `it gave up in ${Date.now() - started} ms`);
});

test('a caller that stops before the end chunk cancels the body at once', async () => {
  let cancelled = false;
  const metadata = `${JSON.stringify({ event: 'metadata', data: { thread_id: 't1' } })}\n`;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(metadata));
    },
    pull: () => new Promise<void>(() => {}),
    cancel() {
      cancelled = true;
    },
  });
  const started = Date.now();
  for await (const chunk of readNdjson(body, 'test stream')) {
    if (chunk.event === 'metadata') break;
  }
  assert.equal(cancelled, true);
  assert.ok(Date.now() - started < 500, `it did not wait (${Date.now() - started} ms)`);
});
