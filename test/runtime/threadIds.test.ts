/**
 * What a thread id is (docs/spec.md §4): 1 to 128 characters of ASCII letters, digits, `_`, `-`,
 * `.` and `:`, not `.` or `..` alone. Every id a server or client makes stays valid (UUIDs,
 * `thread_<uuid>`, snowflake numbers); any other is refused with 422 `VALIDATION_ERROR` naming the
 * field, the same way on every route (invoke, stream, WebSocket, stop, fix, the thread routes) and every
 * store (SQLite in memory and in a file, PostgreSQL in a cluster of its own), where before `.`
 * and `..` made threads no route could reach, ids differing only in lone surrogates became one
 * PostgreSQL row, and NUL was a 500. The client refuses such ids before sending anything.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer, PostgresThreadStore, SqliteThreadStore, type ApiServer, type ThreadStore } from '../../runtime/src/api/index';
import { TenxGraphClient, TenxGraphError, isThreadId as clientIsThreadId } from '../../client-sdk/src';
import { TestPostgres } from '../support/postgres';
import WebSocket from 'ws';
import { buildTestGraph, postJson, postStream, userText } from './serverHelpers';

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

/**
 * Of those, what a run body's `config.thread_id` (and a stop or fix body's `thread_id`) takes as
 * the Python server does: blank asks for a new thread, a positive whole number is the id written
 * as digits. Everywhere else (paths, the client) they are refused.
 */
const BLANK_IDS = ['', ' '];
const NUMBER_IDS = [42];
/** The ids every route refuses. */
const REFUSED_IDS = INVALID_IDS.filter((id) => !BLANK_IDS.includes(id as string) && !NUMBER_IDS.includes(id as number));

/** Checks a 422 body (or a WebSocket error chunk's data, as `{error}`) refuses a thread id: its code, its sentence naming `field`, and where (`loc`). */
function threadIdRefusal(body: any, field: string, loc: Array<string | number>): void {
  assert.equal(body?.error?.code, 'VALIDATION_ERROR', JSON.stringify(body));
  assert.match(body.error.message, new RegExp(`^${field.replace(/[.{}/()]/g, '\\$&')} must be a thread id: 1 to 128 characters of ASCII letters, digits`));
  assert.deepEqual(
    body.error.details?.map((detail: { loc: unknown }) => detail.loc),
    [loc],
    JSON.stringify(body),
  );
}

/** Runs one frame on a WebSocket to `/v1/graph/ws` and resolves to its chunks, up to and with the `done` that ends the run. */
async function wsRun(socket: WebSocket, frame: Record<string, unknown>): Promise<any[]> {
  const chunks: any[] = [];
  const done = new Promise<void>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const chunk = JSON.parse(data.toString());
      chunks.push(chunk);
      if (chunk.event === 'updates' && chunk.data?.status === 'done') {
        socket.off('message', onMessage);
        resolve();
      }
    };
    socket.on('message', onMessage);
  });
  socket.send(JSON.stringify(frame));
  await done;
  return chunks;
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
      for (const id of REFUSED_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: id } });
        assert.equal(invoked.status, 422, `invoke ${JSON.stringify(id)}`);
        threadIdRefusal(invoked.body, "Field 'config.thread_id'", ['body', 'config', 'thread_id']);
        // Refused before the stream starts: a JSON error answer, not a stream.
        const streamed = await postStream(url, { messages: [userText('hello')], config: { thread_id: id } });
        assert.equal(streamed.status, 422, `stream ${JSON.stringify(id)}`);
        assert.match(streamed.contentType ?? '', /^application\/json/);
        threadIdRefusal(streamed.chunks[0], "Field 'config.thread_id'", ['body', 'config', 'thread_id']);
        // PostgreSQL cannot even be asked about an id with NUL (it is no text there): only the others are looked up.
        if (typeof id === 'string' && id !== '' && !id.includes('\u0000')) assert.equal(await store.load(id), undefined, `a thread ${JSON.stringify(id)} was stored`);
      }
    });

    test('a blank config.thread_id starts a new thread with an id of its own; a whole number is that number as text', async () => {
      for (const id of BLANK_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: id } });
        assert.equal(invoked.status, 200, JSON.stringify(invoked.body));
        assert.equal(invoked.body.data.meta.is_new_thread, true);
        assert.ok(isThreadId(invoked.body.data.meta.thread_id), invoked.body.data.meta.thread_id);
      }
      for (const id of NUMBER_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: id } });
        assert.equal(invoked.status, 200, JSON.stringify(invoked.body));
        assert.equal(invoked.body.data.meta.thread_id, String(id));
        assert.ok(await store.load(String(id)));
      }
    });

    test('ids differing only in lone surrogates are refused, never merged into one thread', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: 'pair\ud800' } });
      assert.equal(asked.status, 422);
      const other = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'pair\udbff' } });
      assert.equal(other.status, 422);
      assert.equal(await store.load('pair\ufffd'), undefined);
    });

    test('the WebSocket refuses them the same way, in an error chunk followed by done; the socket takes the next run', async () => {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`);
      await once(socket, 'open');
      try {
        for (const id of REFUSED_IDS) {
          for (const frame of [
            { invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: id } },
            { invoke_type: 'resume', tool_result: [userText('hello')], config: { thread_id: id } },
          ]) {
            const chunks = await wsRun(socket, frame);
            assert.deepEqual(
              chunks.map((chunk) => chunk.event),
              ['error', 'updates'],
              `${frame.invoke_type} ${JSON.stringify(id)}`,
            );
            const error = chunks[0];
            threadIdRefusal({ error: { code: error.data.code, message: error.data.reason, details: error.data.details } }, "Field 'config.thread_id'", [
              'body',
              'config',
              'thread_id',
            ]);
          }
        }
        const good = await wsRun(socket, { invoke_type: 'fresh', messages: [userText('hello')] });
        assert.ok(isThreadId(good[0].thread_id), JSON.stringify(good[0]));
        assert.ok(!good.some((chunk) => chunk.event === 'error'), JSON.stringify(good));
      } finally {
        socket.close();
        await once(socket, 'close');
      }
    });

    test('stop and fix refuse them in the body with 422 naming thread_id; a blank one is missing', async () => {
      for (const route of ['stop', 'fix']) {
        for (const id of REFUSED_IDS) {
          const answered = await postJson(`${url}/v1/graph/${route}`, { thread_id: id });
          assert.equal(answered.status, 422, `${route} ${JSON.stringify(id)}`);
          threadIdRefusal(answered.body, "Field 'thread_id'", ['body', 'thread_id']);
        }
        for (const id of BLANK_IDS) {
          const answered = await postJson(`${url}/v1/graph/${route}`, { thread_id: id });
          assert.equal(answered.status, 422, `${route} ${JSON.stringify(id)}`);
          assert.equal(answered.body.error.code, 'VALIDATION_ERROR');
          assert.deepEqual(answered.body.error.details[0].loc, ['body', 'thread_id']);
        }
      }
    });

    test('the thread routes refuse them in the path with 422 naming it', async () => {
      for (const segment of ['a%20b', 'nul%00id', 'caf%C3%A9', 'a%2Fb', 'x'.repeat(MAX_THREAD_ID_LENGTH + 1), 'line%0Abreak']) {
        for (const [method, path] of [
          ['GET', `/v1/threads/${segment}`],
          ['DELETE', `/v1/threads/${segment}`],
          ['GET', `/v1/threads/${segment}/state`],
          ['PUT', `/v1/threads/${segment}/state`],
          ['DELETE', `/v1/threads/${segment}/state`],
          ['GET', `/v1/threads/${segment}/messages`],
          ['POST', `/v1/threads/${segment}/messages`],
          ['GET', `/v1/threads/${segment}/messages/m1`],
          ['DELETE', `/v1/threads/${segment}/messages/m1`],
        ] as const) {
          const response = await fetch(`${url}${path}`, { method });
          assert.equal(response.status, 422, `${method} ${path}`);
          threadIdRefusal(await response.json(), "Path parameter 'id' of /v1/threads/{id}", ['path', 'thread_id']);
        }
      }
    });

    test('the ids servers and clients make work on every route; a new thread gets one', async () => {
      for (const id of VALID_IDS) {
        const invoked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: id } });
        assert.equal(invoked.status, 200, `invoke ${id}: ${JSON.stringify(invoked.body)}`);
        assert.deepEqual(invoked.body.data.meta, { is_new_thread: true, thread_id: id });
        const path = `${url}/v1/threads/${encodeURIComponent(id)}`;
        const read = await fetch(path);
        assert.equal(read.status, 200, `GET ${id}`);
        const thread = ((await read.json()) as any).data.thread_data.thread;
        assert.equal(thread.thread_id, id);
        assert.equal(thread.metadata.status, 'waiting');
        const state = await fetch(`${path}/state`);
        assert.equal(state.status, 200, `GET state ${id}`);
        assert.equal(((await state.json()) as any).data.state.execution_meta.thread_id, id);
        const messages = await fetch(`${path}/messages`);
        assert.equal(messages.status, 200, `GET messages ${id}`);
        assert.ok(((await messages.json()) as any).data.messages.length > 0);
        const stopped = await postJson(`${url}/v1/graph/stop`, { thread_id: id });
        assert.equal(stopped.status, 200, `stop ${id}`);
        assert.deepEqual(stopped.body.data, { ok: true, running: false, reason: 'not-running' });
        const fixed = await postJson(`${url}/v1/graph/fix`, { thread_id: id });
        assert.equal(fixed.status, 200, `fix ${id}`);
        const deleted = await fetch(path, { method: 'DELETE' });
        assert.equal(deleted.status, 200, `DELETE ${id}`);
      }
      const fresh = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
      assert.ok(isThreadId(fresh.body.data.meta.thread_id), fresh.body.data.meta.thread_id);
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
          ? { messages: [], state: null, context: null, summary: null, meta: { is_new_thread: true, thread_id: threadId } }
          : { thread_data: { thread: null } };
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
      const threadId = id as string;
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['threadDetails', () => client.threadDetails(threadId)],
        ['threadState', () => client.threadState(threadId)],
        ['updateThreadState', () => client.updateThreadState(threadId, {})],
        ['clearThreadState', () => client.clearThreadState(threadId)],
        ['threadMessages', () => client.threadMessages(threadId)],
        ['addThreadMessages', () => client.addThreadMessages(threadId, [])],
        ['threadMessage', () => client.threadMessage(threadId, 'm1')],
        ['deleteThreadMessage', () => client.deleteThreadMessage(threadId, 'm1')],
        ['deleteThread', () => client.deleteThread(threadId)],
        ['stopGraph', () => client.stopGraph(threadId)],
        ['fixGraph', () => client.fixGraph(threadId)],
      ];
      for (const [name, call] of calls) await assert.rejects(call(), refused, `${name} ${JSON.stringify(id)}`);
    }
    assert.deepEqual(sent, []);
  });

  test('sends valid ids as they are, and names a new thread with a valid id when it has a signal', async () => {
    const { client, sent } = recordingClient();
    for (const id of VALID_IDS) {
      await client.invoke('hello', { config: { thread_id: id } });
      await client.threadDetails(id);
    }
    await client.invoke('hello', { signal: new AbortController().signal });
    const named = sent.at(-1)!.body.config.thread_id;
    assert.match(named, /^thread_[0-9a-f-]{36}$/);
    assert.ok(isThreadId(named));
    assert.equal(sent.length, VALID_IDS.length * 2 + 1);
    assert.deepEqual(
      sent.slice(0, 2).map((request) => request.url),
      [`http://127.0.0.1:9/v1/graph/invoke`, `http://127.0.0.1:9/v1/threads/${encodeURIComponent(VALID_IDS[0]!)}`],
    );
  });

  test('the package exports the same check (isThreadId) for apps that name threads', () => {
    for (const id of VALID_IDS) assert.equal(clientIsThreadId(id), true, id);
    for (const id of INVALID_IDS) assert.equal(clientIsThreadId(id), false, JSON.stringify(id));
  });

  test('an answer naming an invalid thread id is refused as not a 10xgraph answer', async () => {
    const { client } = recordingClient('..');
    await assert.rejects(client.invoke('hello'), (error: unknown) => error instanceof TenxGraphError && error.code === 'UNEXPECTED_RESPONSE' && /thread id/.test(error.message));
  });
});
