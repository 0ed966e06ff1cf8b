/**
 * Threads over time and in numbers: a waiting thread survives a server restart (and a crash mid
 * run), 100 threads running the remote tool loop at once never mix up their calls, and neither do
 * 20 conversations on one WebSocket, whose runs go one after another.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApiServer, SCHEMA_VERSION, startApiServer, type ApiServer } from '../../runtime/src/api/index';
import { QUICKSTART_CONFIG, WsSession, buildTestGraph, isDone, joinLastText, collectMessages, postJson, postStream, findRemoteCalls, resultsFor, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };

describe('a restart between the remote call and its result', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-threads-'));
  const db = join(folder, 'threads.sqlite');
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('the thread resumes on the new server, nothing lost', async () => {
    let server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('What time is it and where am I?')] });
    const threadId = first.body.data.meta.thread_id;
    const calls = findRemoteCalls(first.body.data.messages);
    assert.equal(calls.length, 1);
    await server.close();

    server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    try {
      const second = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Bergen')], config: { thread_id: threadId } });
      assert.equal(second.status, 200);
      assert.deepEqual(findRemoteCalls(second.body.data.messages), []);
      const answer = joinLastText(second.body.data.messages);
      // The server tool's result came before the restart; the remote one after it.
      assert.match(answer, /get_time: \d{4}-/);
      assert.match(answer, /get_user_location: Bergen/);
      const record = (await server.api.store.load(threadId))!;
      assert.deepEqual(
        record.checkpoint.state.messages.map((m) => m.role),
        ['user', 'assistant', 'tool', 'tool', 'tool', 'assistant'],
      );
    } finally {
      await server.close();
    }
  });

  test('a database of schema 1 with a running flag left by a crash is migrated and its thread resumes', async () => {
    let server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    const first = await postStream(server.url, { messages: [userText('read my clipboard')] });
    const threadId = first.chunks[0].thread_id;
    const calls = findRemoteCalls(collectMessages(first.chunks));
    assert.equal(calls.length, 1);
    await server.close();
    // Back to the first releases' schema, as a process that died mid-run left it.
    const raw = new Database(db);
    raw.exec(
      `DROP INDEX threads_user_updated; ALTER TABLE threads DROP COLUMN user_id; ALTER TABLE threads ADD COLUMN running INTEGER NOT NULL DEFAULT 0; PRAGMA user_version = 1;`,
    );
    raw.prepare('UPDATE threads SET running = 1 WHERE thread_id = ?').run(threadId);
    raw.close();

    server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    try {
      const ws = await WsSession.open(server.url);
      const chunks = await ws.run({ invoke_type: 'resume', tool_result: [resultsFor(calls, () => 'clip')], config: { thread_id: threadId } });
      await ws.close();
      assert.ok(
        chunks.every((c) => c.event === 'message' || isDone(c)),
        JSON.stringify(chunks),
      );
      assert.deepEqual(
        collectMessages(chunks).map((m) => m.role),
        ['tool', 'assistant'],
      );
      assert.match(joinLastText(collectMessages(chunks)), /read_clipboard: clip/);
    } finally {
      await server.close();
    }
    const migrated = new Database(db, { readonly: true });
    try {
      assert.equal(migrated.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const columns = (migrated.prepare('PRAGMA table_info(threads)').all() as Array<{ name: string }>).map((c) => c.name);
      assert.ok(!columns.includes('running'), `columns: ${columns.join(', ')}`);
    } finally {
      migrated.close();
    }
  });
});

describe('100 threads at once', () => {
  let api: ApiServer;
  let url: string;
  before(async () => {
    api = createApiServer({ graph: buildTestGraph(), token: '', log: quiet });
    url = await api.listen(0, '127.0.0.1');
  });
  after(() => api.close());

  test('each completes its own remote round trip over HTTP, none lost or mixed up', async () => {
    const runs = Array.from({ length: 100 }, async (_, i) => {
      const first = await postJson(`${url}/v1/graph/invoke`, { messages: [userText(`search for item-${i}`)] });
      assert.equal(first.status, 200);
      const threadId = first.body.data.meta.thread_id;
      const calls = findRemoteCalls(first.body.data.messages);
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0]!.args, { query: `item-${i}` });
      const second = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, (call: any) => `result-for-${call.args.query}`)], config: { thread_id: threadId } });
      assert.equal(second.status, 200);
      assert.equal(second.body.data.meta.thread_id, threadId);
      const answer = joinLastText(second.body.data.messages);
      assert.equal(answer, `Here is what the tools returned:\nsearch_local_database: result-for-item-${i}`);
      return threadId as string;
    });
    const threads = await Promise.all(runs);
    assert.equal(new Set(threads).size, 100);
  });

  test('20 conversations on one WebSocket, their frames sent at once: the runs go one after another in order, each ended by its done, none mixed up', async () => {
    const ws = await WsSession.open(url);
    try {
      for (let i = 0; i < 20; i++) ws.send({ invoke_type: 'fresh', messages: [userText(`search for doc-${i}`)] });
      const asked: Array<{ threadId: string; calls: ReturnType<typeof findRemoteCalls> }> = [];
      for (let i = 0; i < 20; i++) {
        const run = await ws.next();
        assert.ok(isDone(run.at(-1)));
        const threadId = run[0].thread_id;
        assert.ok(
          run.slice(0, -1).every((c) => c.thread_id === threadId),
          `run ${i} carries chunks of another thread`,
        );
        const calls = findRemoteCalls(collectMessages(run));
        assert.deepEqual(
          calls.map((call) => call.args),
          [{ query: `doc-${i}` }],
        );
        asked.push({ threadId, calls });
      }
      assert.equal(new Set(asked.map((run) => run.threadId)).size, 20);
      for (const [i, { threadId, calls }] of asked.entries()) {
        ws.send({ invoke_type: 'resume', tool_result: [resultsFor(calls, () => `hit-${i}`)], config: { thread_id: threadId } });
      }
      for (const [i, { threadId }] of asked.entries()) {
        const run = await ws.next();
        assert.ok(run.slice(0, -1).every((c) => c.thread_id === threadId));
        assert.match(joinLastText(collectMessages(run)), new RegExp(`search_local_database: hit-${i}$`));
      }
    } finally {
      await ws.close();
    }
  });
});
