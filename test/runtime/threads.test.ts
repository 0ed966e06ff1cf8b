/**
 * The thread routes (`GET /v1/threads`, `GET` and `DELETE /v1/threads/{id}`, its `/state` and
 * `/messages`), `POST /v1/graph/stop`, and the client's methods for them, on both stores: SQLite
 * in a temporary file and PostgreSQL in a cluster of its own. A stop cancels the remote calls a
 * thread waits for, or ends the run going on it; an aborted `invoke` or `stream` stops the thread
 * it leaves behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { CANCELLED_RESULT, createApiServer, PostgresThreadStore, SqliteThreadStore, type ApiServer, type ThreadStore } from '../../runtime/src/api/index';
import { failureReasonOf, TenxGraphClient, TenxGraphError } from '../../client-sdk/src';
import type { Message, ToolResultBlock } from '../../client-sdk/src/wire';
import { TestPostgres } from '../support/postgres';
import { buildTestGraph, getJson, joinLastText, latch, postJson, findRemoteCalls, resultsFor, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };
const TOKEN = 'thread-token';
const auth = { authorization: `Bearer ${TOKEN}` };

async function request(method: string, url: string, headers: Record<string, string> = auth): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, { method, headers });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
}

/** Whether `error` is the client's error with this status and code. */
function isApiError(status: number, code: string): (error: unknown) => boolean {
  return (error) => error instanceof TenxGraphError && error.status === status && error.code === code;
}

/** The `tool_result` blocks of a message. */
function findResults(message: Message | undefined): ToolResultBlock[] {
  return (message?.content ?? []).filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

function threadSuite(name: string, open: () => Promise<ThreadStore>): void {
  describe(`thread routes and client methods (${name})`, () => {
    let store: ThreadStore;
    let api: ApiServer;
    let url: string;
    let client: TenxGraphClient;
    /** The tool `slow_tool` waits for the test (`gate`) or for its run to be stopped. */
    let entered = latch();
    let gate = latch();
    before(async () => {
      store = await open();
      const slow = {
        name: 'slow_tool',
        description: 'Waits until the test lets it finish, or its run is stopped.',
        handler: async (_args: unknown, context: { signal?: AbortSignal }) => {
          entered.release();
          await Promise.race([gate.promise, new Promise((resolve) => context.signal?.addEventListener('abort', resolve, { once: true }))]);
          return context.signal?.aborted ? 'stopped' : 'finally';
        },
      };
      api = createApiServer({ graph: buildTestGraph([slow]), db: store, token: TOKEN, log: quiet });
      url = await api.listen(0, '127.0.0.1');
      client = new TenxGraphClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never });
    });
    after(async () => {
      gate.release();
      client.close();
      await api.close();
      await store.close();
    });

    test('a thread shows whether it waits or runs; its messages come a page at a time; a missing thread is null; the token is required', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for pages')], config: { thread_id: 'read-1' } }, auth);
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.equal(calls.length, 1);
      const whole = await getJson(`${url}/v1/threads/read-1`, auth);
      assert.equal(whole.status, 200);
      const thread = whole.body.data.thread_data.thread;
      assert.equal(thread.thread_id, 'read-1');
      assert.equal(thread.metadata.status, 'waiting');
      assert.equal(thread.metadata.running, false);
      assert.equal(thread.metadata.message_count, 3);
      assert.match(thread.updated_at, /^\d{4}-\d\d-\d\dT/);
      assert.ok((await client.threads()).threads.some((listed) => listed.thread_id === 'read-1'));

      const { state } = await client.threadState('read-1');
      assert.deepEqual(
        state?.context.map((m) => m.role),
        ['user', 'assistant', 'tool'],
      );
      assert.equal(state?.execution_meta.status, 'interrupted_after');
      assert.deepEqual(
        (state?.execution_meta.interrupt_data as { remote_tool_calls: Array<{ id: string }> }).remote_tool_calls.map((call) => call.id),
        calls.map((call) => call.id),
      );

      const all = await getJson(`${url}/v1/threads/read-1/messages`, auth);
      assert.deepEqual(
        all.body.data.messages.map((m: any) => m.role),
        ['user', 'assistant', 'tool'],
      );
      const first = await client.threadMessages('read-1', { limit: 2 });
      assert.deepEqual(
        first.messages?.map((m) => m.role),
        ['user', 'assistant'],
      );
      const second = await client.threadMessages('read-1', { offset: 2, limit: 2 });
      assert.deepEqual(
        second.messages?.map((m) => m.role),
        ['tool'],
      );
      assert.deepEqual((await client.threadMessages('read-1', { offset: 3 })).messages, []);
      const found = await client.threadMessages('read-1', { search: 'PAGES' });
      assert.deepEqual(
        found.messages?.map((m) => joinLastText([m])),
        ['search for pages'],
      );
      const one = await client.threadMessage('read-1', first.messages![1]!.message_id);
      assert.deepEqual(one.content, first.messages![1]!.content);

      assert.equal((await client.threadDetails('nobody')).thread_data.thread, null);
      assert.equal((await client.threadState('nobody')).state, null);
      await assert.rejects(client.threadMessage('nobody', 'm-1'), isApiError(404, 'RESOURCE_NOT_FOUND'));
      await assert.rejects(client.threadMessage('read-1', 'no-such-message'), isApiError(404, 'RESOURCE_NOT_FOUND'));
      const badLimit = await getJson(`${url}/v1/threads/read-1/messages?limit=0`, auth);
      assert.equal(badLimit.status, 422);
      assert.equal(badLimit.body.error.code, 'VALIDATION_ERROR');
      assert.match(badLimit.body.error.message, /Query parameter 'limit' must be a whole number from 1 to 1000; got '0'/);
      assert.deepEqual(badLimit.body.error.details[0].loc, ['query', 'limit']);
      for (const [method, path] of [
        ['GET', '/v1/threads'],
        ['GET', '/v1/threads/read-1'],
        ['GET', '/v1/threads/read-1/state'],
        ['GET', '/v1/threads/read-1/messages'],
        ['DELETE', '/v1/threads/read-1'],
        ['POST', '/v1/graph/stop'],
      ]) {
        const refused = await request(method!, `${url}${path}`, {});
        assert.equal(refused.status, 401, `${method} ${path}`);
        assert.equal(refused.body.error.code, 'INVALID_TOKEN');
        assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="10xgraph"');
      }
      const wrongMethod = await request('PUT', `${url}/v1/threads/read-1`);
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get('allow'), 'GET, DELETE');
      for (const action of ['resume', 'cancel']) {
        const unknownAction = await request('POST', `${url}/v1/threads/read-1/${action}`);
        assert.equal(unknownAction.status, 404, action);
        assert.equal(unknownAction.body.error.code, 'NOT_FOUND');
      }
    });

    test('stop on a waiting thread answers every pending call with a failed "Cancelled" result; the thread then takes new messages', async () => {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for cancelled')], config: { thread_id: 'cancel-1' } }, auth);
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.equal(calls.length, 1);
      // Before the stop, a new message is refused: the thread waits for its results.
      const wedged = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(wedged.status, 422);
      assert.equal(wedged.body.error.code, 'MISSING_TOOL_RESULTS');

      const stopped = await client.stopGraph('cancel-1');
      assert.deepEqual(stopped, { ok: true, running: false, reason: 'not-running' });
      const { messages } = await client.threadMessages('cancel-1');
      const cancelled = messages!.at(-1);
      assert.equal(cancelled?.role, 'tool');
      assert.deepEqual(
        findResults(cancelled).map((block) => ({ call_id: block.call_id, is_error: block.is_error, status: block.status, reason: failureReasonOf(block) })),
        calls.map((call) => ({ call_id: call.id, is_error: true, status: 'failed', reason: CANCELLED_RESULT })),
      );
      assert.deepEqual(
        findResults(cancelled).map((block) => block.output),
        calls.map(() => ({ error: CANCELLED_RESULT })),
      );
      const thread = (await client.threadDetails('cancel-1')).thread_data.thread;
      assert.equal(thread?.metadata?.status, 'completed');
      assert.equal((await client.threadState('cancel-1')).state?.execution_meta.interrupt_data, null);

      const next = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(next.status, 200);
      assert.equal(joinLastText(next.body.data.messages), 'No tool needed.');
      // A late result for a cancelled call is refused: the call is answered.
      const late = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'late')], config: { thread_id: 'cancel-1' } }, auth);
      assert.equal(late.status, 422);
      assert.equal(late.body.error.code, 'UNKNOWN_CALL_ID');

      // Nothing to cancel: the thread is left as it is.
      const count = (await client.threadMessages('cancel-1')).messages!.length;
      assert.deepEqual(await client.stopGraph('cancel-1'), { ok: true, running: false, reason: 'not-running' });
      assert.equal((await client.threadMessages('cancel-1')).messages!.length, count);
      assert.deepEqual(await client.stopGraph('nobody'), { ok: false, running: false, reason: 'no-state' });
    });

    test('DELETE removes a thread; a running thread shows running and refuses writes with 409; stop ends its run, which keeps what it made', async () => {
      await client.invoke('hello', { config: { thread_id: 'delete-1' } });
      const deleted = await client.deleteThread('delete-1');
      assert.deepEqual(deleted, { success: true, message: 'Thread deleted successfully', data: { thread_id: 'delete-1', deleted: true } });
      assert.equal((await client.threadDetails('delete-1')).thread_data.thread, null);
      await assert.rejects(client.deleteThread('delete-1'), isApiError(404, 'RESOURCE_NOT_FOUND'));

      entered = latch();
      gate = latch();
      const running = postJson(`${url}/v1/graph/invoke`, { messages: [userText('run the slow tool')], config: { thread_id: 'busy-1' } }, auth);
      await entered.promise;
      assert.equal((await client.threadDetails('busy-1')).thread_data.thread?.metadata?.running, true);
      await assert.rejects(client.deleteThread('busy-1'), isApiError(409, 'THREAD_BUSY'));
      await assert.rejects(client.clearThreadState('busy-1'), isApiError(409, 'THREAD_BUSY'));
      await assert.rejects(client.addThreadMessages('busy-1', [{ message_id: '0', role: 'user', content: [{ type: 'text', text: 'hi' }] }]), isApiError(409, 'THREAD_BUSY'));

      // The gate is never opened: the stop alone ends the run.
      assert.deepEqual(await client.stopGraph('busy-1'), { ok: true, running: true });
      const answer = await running;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const made = answer.body.data.messages;
      assert.deepEqual(
        made.map((m: any) => m.role),
        ['user', 'assistant', 'tool'],
      );
      assert.equal(made[2].content[0].output, 'stopped');
      assert.equal((await client.threadDetails('busy-1')).thread_data.thread?.metadata?.running, false);
      assert.deepEqual(
        (await client.threadMessages('busy-1')).messages?.map((m) => m.message_id),
        made.map((m: any) => m.message_id),
      );
      assert.equal(joinLastText((await client.invoke('hello', { config: { thread_id: 'busy-1' } })).messages), 'No tool needed.');
      assert.equal((await client.deleteThread('busy-1')).success, true);
    });

    for (const transport of ['invoke', 'http', 'ws'] as const) {
      test(`aborting ${transport === 'invoke' ? 'invoke' : `stream over ${transport}`} while a handler runs stops the thread, cancelling the pending call; the thread takes new messages`, async () => {
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
        // The client named the thread (`thread_…`) and stopped it before it rejected.
        const named = (await client.threads({ search: 'thread_' })).threads.map((thread) => thread.thread_id).filter((id) => !abandoned.has(id));
        assert.equal(named.length, 1, `new threads named by the client: ${named.join(', ')}`);
        const threadId = named[0]!;
        abandoned.add(threadId);
        const last = (await client.threadMessages(threadId)).messages!.at(-1);
        assert.deepEqual(
          findResults(last).map((block) => [block.status, failureReasonOf(block)]),
          [['failed', CANCELLED_RESULT]],
        );
        assert.equal((await client.threadDetails(threadId)).thread_data.thread?.metadata?.status, 'completed');
        const next = await client.invoke('hello', { config: { thread_id: threadId } });
        assert.equal(joinLastText(next.messages), 'No tool needed.');
      });
    }
    const abandoned = new Set<string>();
  });
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
