/**
 * What a thread id is (docs/spec.md §4): 1 to 128 characters of ASCII letters, digits, `_`, `-`,
 * `.` and `:`, not `.` or `..` alone. Every id a server or client makes stays valid (UUIDs,
 * `thread_<uuid>`, snowflake numbers); any other is refused with 422 `invalid_request` naming the
 * field, the same way on every route (invoke, stream, WebSocket, the thread routes) and every
 * store (SQLite in memory and in a file, PostgreSQL in a cluster of its own), where before `.`
 * and `..` made threads no route could reach, ids differing only in lone surrogates became one
 * PostgreSQL row, and NUL was a 500. The client refuses such ids before sending anything.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, PostgresThreadStore, SqliteThreadStore, type ApiServer, type ThreadStore } from '../../runtime/src/api/index';
import { TenxGraphClient, TenxGraphError, isThreadId as clientIsThreadId } from '../../client-sdk/src';
import { TestPostgres } from '../support/postgres';
import { WsSession, buildTestGraph, postJson, postStream, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };
const MAX_THREAD_ID_LENGTH = 128;
/** The rule of docs/spec.md §4, written out here so the test does not take it from the code it checks. */
const isThreadId = (id: unknown) => typeof id === 'string' && /^[A-Za-z0-9_.:-]{1,128}$/.test(id) && id !== '.' && id !== '..';

/** Ids servers and clients make, and others of the allowed characters: all must work. */
const VALID_IDS = [randomUUID(), `thread_${randomUUID()}`, '1234567890123456789', '18446744073709551615', 'a'.repeat(MAX_THREAD_ID_LENGTH), 'run.v2:step-1_final', '...'];

/** Ids no route could name, no database keeps apart or stores, or no log shows as they are. */
const INVALID_IDS: unknown[] = [
  '.',
  '..',
  '',
  ' ',
  'a b',
  'a/b',
  'a?b',
  'a%2fb',
  'nul\u0000id',
  'pair\ud800',
  'pair\udbff',
  'naïve',
  'line\nbreak',
  'x'.repeat(MAX_THREAD_ID_LENGTH + 1),
  42,
  true,
  ['a'],
];

function threadIdRefusal(body: any, field: string): void {
  assert.equal(body?.error?.code, 'invalid_request', JSON.stringify(body));
  assert.match(body.error.message, new RegExp(`^${field.replace(/[.{}/()]/g, '\\$&')} must be a thread id: 1 to 128 characters of ASCII letters, digits`));
}

function storeSuite(name: string, open: () => Promise<ThreadStore>): void {
  describe(`thread ids (${name})`, () => {
    let store: ThreadStore;
    let api: ApiServer;
    let url: string;
    before(async () => {
      store = await open();
      api = createApiServer({ graph: buildTestGraph(), db: store, token: '', corsOrigins: [], allowedHosts: [], log: quiet });
      url = await api.listen(0, '127.0.0.1');
    });
    after(async () => {
      await api.close();
      await store.close();
    });

    test('invoke and stream refuse every other id with 422 naming config.thread_id; nothing is stored', async () => {
      for (const id of INVALID_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: id } });
        assert.equal(invoked.status, 422, `invoke ${JSON.stringify(id)}`);
        threadIdRefusal(invoked.body, "Field 'config.thread_id'");
        const streamed = await postStream(url, { messages: [userText('hello')], config: { thread_id: id } });
        assert.equal(streamed.status, 422, `stream ${JSON.stringify(id)}`);
        threadIdRefusal(streamed.chunks[0], "Field 'config.thread_id'");
        // PostgreSQL cannot even be asked about an id with NUL (it is no text there): only the others are looked up.
        if (typeof id === 'string' && id !== '' && !id.includes('\u0000')) assert.equal(await store.load(id), undefined, `a thread ${JSON.stringify(id)} was stored`);
      }
    });

    test('ids differing only in lone surrogates are refused, never merged into one thread', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: 'pair\ud800' } });
      assert.equal(asked.status, 422);
      const other = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'pair\udbff' } });
      assert.equal(other.status, 422);
      assert.equal(await store.load('pair\ufffd'), undefined);
    });

    test('the WebSocket refuses them the same way, in an error chunk', async () => {
      const session = await WsSession.open(url);
      try {
        for (const [i, id] of INVALID_IDS.entries()) {
          const chunks = await session.request(`bad-${i}`, { messages: [userText('hello')], config: { thread_id: id } });
          const error = chunks.find((chunk) => chunk.event === 'error');
          assert.ok(error, `no error chunk for ${JSON.stringify(id)}`);
          threadIdRefusal({ error: error.data }, "Field 'config.thread_id'");
          assert.equal(chunks.at(-1).data.status, 'error');
        }
      } finally {
        await session.close();
      }
    });

    test('the thread routes refuse them in the path with 422 naming it', async () => {
      for (const segment of ['a%20b', 'nul%00id', 'caf%C3%A9', 'a%2Fb', 'x'.repeat(MAX_THREAD_ID_LENGTH + 1), 'line%0Abreak']) {
        for (const [method, path] of [
          ['GET', `/v1/threads/${segment}`],
          ['DELETE', `/v1/threads/${segment}`],
          ['POST', `/v1/threads/${segment}/cancel`],
        ] as const) {
          const response = await fetch(`${url}${path}`, { method });
          assert.equal(response.status, 422, `${method} ${path}`);
          threadIdRefusal(await response.json(), "Path parameter 'id' of /v1/threads/{id}");
        }
      }
    });

    test('the ids servers and clients make work on every route; a new thread gets one', async () => {
      for (const id of VALID_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: id } });
        assert.equal(invoked.status, 200, `invoke ${id}: ${JSON.stringify(invoked.body)}`);
        assert.equal(invoked.body.data.thread_id, id);
        const read = await fetch(`${url}/v1/threads/${encodeURIComponent(id)}`);
        assert.equal(read.status, 200, `GET ${id}`);
        assert.equal(((await read.json()) as any).data.status, 'waiting');
        const cancelled = await fetch(`${url}/v1/threads/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
        assert.equal(cancelled.status, 200, `cancel ${id}`);
        const deleted = await fetch(`${url}/v1/threads/${encodeURIComponent(id)}`, { method: 'DELETE' });
        assert.equal(deleted.status, 200, `DELETE ${id}`);
      }
      const fresh = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
      assert.ok(isThreadId(fresh.body.data.thread_id), fresh.body.data.thread_id);
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), '10xgraph-thread-ids-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

storeSuite('SQLite in memory', async () => new SqliteThreadStore(':memory:'));
storeSuite('SQLite file', async () => new SqliteThreadStore(join(folder, 'threads.sqlite')));
storeSuite('PostgreSQL', async () => PostgresThreadStore.open(cluster.url));

describe('the client and thread ids', () => {
  /** A client whose fetch records every request and answers like a server that made a new thread. */
  function recordingClient(threadId = 'thread-from-server') {
    const sent: Array<{ url: string; body: any }> = [];
    const client = new TenxGraphClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async (input, init) => {
        const body = init?.body === undefined ? undefined : JSON.parse(String(init.body));
        sent.push({ url: input, body });
        const data = input.endsWith('/invoke')
          ? { thread_id: threadId, status: 'completed', messages: [], pending_remote_calls: [] }
          : {
              thread_id: threadId,
              status: 'completed',
              running: false,
              message_count: 0,
              messages: [],
              pending_remote_calls: [],
              page: { offset: 0, limit: 100, next_offset: null },
            };
        return new Response(JSON.stringify({ data, metadata: { request_id: 'r', timestamp: '', message: '' } }), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    return { client, sent };
  }

  test('refuses an invalid id before sending anything, with an error naming the rule', async () => {
    const { client, sent } = recordingClient();
    for (const id of INVALID_IDS) {
      const refused = (error: unknown) => error instanceof TypeError && /must be a thread id: 1 to 128 characters of ASCII letters/.test(error.message);
      await assert.rejects(client.invoke('hello', { config: { thread_id: id as string } }), refused, `invoke ${JSON.stringify(id)}`);
      await assert.rejects(
        (async () => {
          for await (const chunk of client.stream('hello', { config: { thread_id: id as string } })) void chunk;
        })(),
        refused,
        `stream ${JSON.stringify(id)}`,
      );
      await assert.rejects(client.thread(id as string), refused, `thread ${JSON.stringify(id)}`);
      await assert.rejects(client.cancelThread(id as string), refused, `cancelThread ${JSON.stringify(id)}`);
      await assert.rejects(client.deleteThread(id as string), refused, `deleteThread ${JSON.stringify(id)}`);
    }
    assert.deepEqual(sent, []);
  });

  test('sends valid ids as they are, and names a new thread with a valid id when it has a signal', async () => {
    const { client, sent } = recordingClient();
    for (const id of VALID_IDS) {
      await client.invoke('hello', { config: { thread_id: id } });
      await client.thread(id);
    }
    await client.invoke('hello', { signal: new AbortController().signal });
    const named = sent.at(-1)!.body.config.thread_id;
    assert.match(named, /^thread_[0-9a-f-]{36}$/);
    assert.ok(isThreadId(named));
    assert.equal(sent.length, VALID_IDS.length * 2 + 1);
  });

  test('the package exports the same check (isThreadId) for apps that name threads', () => {
    for (const id of VALID_IDS) assert.equal(clientIsThreadId(id), true, id);
    for (const id of INVALID_IDS) assert.equal(clientIsThreadId(id), false, JSON.stringify(id));
  });

  test('an answer naming an invalid thread id is refused as not a 10xgraph answer', async () => {
    const { client } = recordingClient('..');
    await assert.rejects(client.invoke('hello'), (error: unknown) => error instanceof TenxGraphError && error.code === 'unexpected_response' && /thread id/.test(error.message));
  });
});
