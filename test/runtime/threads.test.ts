/**
 * The thread routes (`GET` and `DELETE /v1/threads/{id}`, `POST /v1/threads/{id}/cancel`) and
 * the client's methods for them, on both stores: SQLite in a temporary file and PostgreSQL in a
 * cluster of its own. An aborted `invoke` or `stream` cancels the calls it leaves behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { CANCELLED_RESULT, createApiServer, PostgresThreadStore, SqliteThreadStore, type ApiServer, type ThreadStore } from '../../runtime/src/api/index';
import { TenxGraphClient, TenxGraphError } from '../../client-sdk/src';
import { poll } from '../support/poll';
import { TestPostgres } from '../support/postgres';
import { buildTestGraph, getJson, latch, postJson, resultsFor, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };
const TOKEN = 'thread-token';
const auth = { authorization: `Bearer ${TOKEN}` };

function lastText(messages: any[]): string {
  return messages
    .at(-1)
    .content.filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}

async function request(method: string, url: string, headers: Record<string, string> = auth): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, { method, headers });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
}

function threadSuite(name: string, open: () => Promise<ThreadStore>): void {
  describe(`thread routes and client methods (${name})`, () => {
    let store: ThreadStore;
    let api: ApiServer;
    let url: string;
    let client: TenxGraphClient;
    const entered = latch();
    const gate = latch();
    before(async () => {
      store = await open();
      const slow = {
        name: 'slow_tool',
        description: 'Waits until the test lets it finish.',
        handler: async () => {
          entered.release();
          await gate.promise;
          return 'finally';
        },
      };
      api = createApiServer({ graph: buildTestGraph([slow]), db: store, token: TOKEN, log: quiet });
      url = await api.listen(0, '127.0.0.1');
      client = new TenxGraphClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never });
    });
    after(async () => {
      client.close();
      await api.close();
      await store.close();
    });

    test('GET reads status, pending calls and messages a page at a time; unknown threads are 404; the token is required', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: 'read-1' } }, auth);
      assert.equal(asked.body.data.status, 'waiting');
      const whole = await getJson(`${url}/v1/threads/read-1`, auth);
      assert.equal(whole.status, 200);
      const data = whole.body.data;
      assert.equal(data.thread_id, 'read-1');
      assert.equal(data.status, 'waiting');
      assert.equal(data.running, false);
      assert.equal(data.message_count, 3);
      assert.deepEqual(
        data.messages.map((m: any) => m.role),
        ['user', 'assistant', 'tool'],
      );
      assert.deepEqual(data.pending_remote_calls, asked.body.data.pending_remote_calls);
      assert.equal(data.last_error, null);
      assert.deepEqual(data.page, { offset: 0, limit: 100, next_offset: null });
      assert.match(whole.body.metadata.message, /Thread 'read-1' is waiting with 3 messages/);

      const first = await client.thread('read-1', { limit: 2 });
      assert.deepEqual(
        first.messages.map((m) => m.role),
        ['user', 'assistant'],
      );
      assert.deepEqual(first.page, { offset: 0, limit: 2, next_offset: 2 });
      const second = await client.thread('read-1', { offset: first.page.next_offset!, limit: 2 });
      assert.deepEqual(
        second.messages.map((m) => m.role),
        ['tool'],
      );
      assert.equal(second.page.next_offset, null);

      const missing = await getJson(`${url}/v1/threads/nobody`, auth);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, 'thread_not_found');
      await assert.rejects(client.thread('nobody'), (e: unknown) => e instanceof TenxGraphError && e.status === 404 && e.code === 'thread_not_found');
      const badLimit = await getJson(`${url}/v1/threads/read-1?limit=0`, auth);
      assert.equal(badLimit.status, 400);
      assert.match(badLimit.body.error.message, /Query parameter 'limit' must be a whole number from 1 to 1000; got '0'/);
      for (const [method, path] of [
        ['GET', '/v1/threads/read-1'],
        ['POST', '/v1/threads/read-1/cancel'],
        ['DELETE', '/v1/threads/read-1'],
      ]) {
        const refused = await request(method!, `${url}${path}`, {});
        assert.equal(refused.status, 401, `${method} ${path}`);
        assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="10xgraph"');
      }
      const wrongMethod = await request('PUT', `${url}/v1/threads/read-1`);
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'GET, DELETE');
      const unknownAction = await request('POST', `${url}/v1/threads/read-1/resume`);
      assert.equal(unknownAction.status, 404);
      assert.equal(unknownAction.body.error.code, 'not_found');
    });

    test('cancel answers every pending call with a failed "cancelled" result; the thread then takes new messages', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for cancelled')], config: { thread_id: 'cancel-1' } }, auth);
      const calls = asked.body.data.pending_remote_calls;
      // Before the cancel, a new message is refused: the thread waits for its results.
      const wedged = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(wedged.status, 400);
      assert.equal(wedged.body.error.code, 'missing_tool_results');

      const cancelled = await client.cancelThread('cancel-1');
      assert.equal(cancelled.status, 'completed');
      assert.deepEqual(
        cancelled.cancelled_calls,
        calls.map((c: any) => c.id),
      );
      assert.deepEqual(
        cancelled.message?.content,
        calls.map((c: any) => ({ type: 'tool_result', call_id: c.id, output: null, status: 'failed', error: CANCELLED_RESULT })),
      );
      const thread = await client.thread('cancel-1');
      assert.equal(thread.status, 'completed');
      assert.deepEqual(thread.pending_remote_calls, []);
      assert.deepEqual(thread.messages.at(-1), cancelled.message);

      const next = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(next.status, 200);
      assert.equal(lastText(next.body.data.messages), 'No tool needed.');
      // A late result for a cancelled call is refused: the call is answered.
      const late = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'late')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(late.status, 400);
      assert.equal(late.body.error.code, 'unknown_call_id');

      const nothing = await client.cancelThread('cancel-1');
      assert.deepEqual(nothing.cancelled_calls, []);
      assert.equal(nothing.message, null);
      await assert.rejects(client.cancelThread('nobody'), (e: unknown) => e instanceof TenxGraphError && e.status === 404);
    });

    test('DELETE removes a thread; a running thread is refused with 409 for cancel and delete, and shows running', async () => {
      await client.invoke('hello', { config: { thread_id: 'delete-1' } });
      const deleted = await client.deleteThread('delete-1');
      assert.deepEqual(deleted, { thread_id: 'delete-1', deleted: true });
      await assert.rejects(client.thread('delete-1'), (e: unknown) => e instanceof TenxGraphError && e.code === 'thread_not_found');
      await assert.rejects(client.deleteThread('delete-1'), (e: unknown) => e instanceof TenxGraphError && e.status === 404);

      const running = postJson(`${url}/v1/graph/invoke`, { messages: [userText('run the slow tool')], config: { thread_id: 'busy-1' } }, auth);
      await entered.promise;
      const shown = await client.thread('busy-1');
      assert.equal(shown.running, true);
      await assert.rejects(client.deleteThread('busy-1'), (e: unknown) => e instanceof TenxGraphError && e.status === 409 && e.code === 'thread_busy');
      await assert.rejects(client.cancelThread('busy-1'), (e: unknown) => e instanceof TenxGraphError && e.status === 409 && e.code === 'thread_busy');
      gate.release();
      assert.equal((await running).status, 200);
      assert.equal((await client.thread('busy-1')).running, false);
      assert.equal((await client.deleteThread('busy-1')).deleted, true);
    });

    for (const transport of ['invoke', 'http', 'ws'] as const) {
      test(`aborting ${transport === 'invoke' ? 'invoke' : `stream over ${transport}`} while a handler runs cancels the pending call; the thread takes new messages`, async () => {
        const started = latch();
        const aborting = new TenxGraphClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never }).registerToolHandler('search_local_database', async (_args, context) => {
          started.release();
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
          return 'never sent';
        });
        const controller = new AbortController();
        const run =
          transport === 'invoke'
            ? aborting.invoke('search for abandoned', { signal: controller.signal })
            : (async () => {
                for await (const chunk of aborting.stream('search for abandoned', { signal: controller.signal, transport })) void chunk;
              })();
        const outcome = run.then(
          () => assert.fail('the aborted run must reject'),
          (error: unknown) => error,
        );
        await started.promise;
        controller.abort(new Error('the tab was closed'));
        const error = await outcome;
        assert.equal((error as Error).message, 'the tab was closed');
        aborting.close();
        // The client named the thread; find it through the store's record of it.
        const threadId = await poll('the abandoned thread to be cancelled', async () => {
          for (const id of await threadsNamedByClient(store)) {
            const thread = await client.thread(id).catch(() => undefined);
            const last = thread?.messages.at(-1);
            if (
              thread?.status === 'completed' &&
              last?.content.some((b) => b.type === 'tool_result' && b.status === 'failed' && b.error === CANCELLED_RESULT) &&
              !cancelledSeen.has(id)
            )
              return id;
          }
          return undefined;
        });
        cancelledSeen.add(threadId);
        const next = await client.invoke('hello', { config: { thread_id: threadId } });
        assert.equal(next.status, 'completed');
      });
    }
    const cancelledSeen = new Set<string>();
  });
}

/** The ids of threads the client named itself (`thread_…`), read from the store under test. */
async function threadsNamedByClient(store: ThreadStore): Promise<string[]> {
  if (store instanceof PostgresThreadStore) {
    return (await cluster.query<{ thread_id: string }>("SELECT thread_id FROM tenxgraph_threads WHERE thread_id LIKE 'thread\\_%'")).map((row) => row.thread_id);
  }
  const Database = (await import('better-sqlite3')).default;
  const raw = new Database((store as SqliteThreadStore).location, { readonly: true });
  try {
    return raw.prepare("SELECT thread_id FROM threads WHERE thread_id LIKE 'thread\\_%' ESCAPE '\\'").pluck().all() as string[];
  } finally {
    raw.close();
  }
}

const folder = mkdtempSync(join(tmpdir(), '10xgraph-thread-routes-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

threadSuite('SQLite', async () => new SqliteThreadStore(join(folder, 'threads.sqlite')));
threadSuite('PostgreSQL', async () => PostgresThreadStore.open(cluster.url));
