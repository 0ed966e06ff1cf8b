/**
 * Threads over time and in numbers: a waiting thread survives a server restart (and a crash mid
 * run), and 100 threads running the remote tool loop at once never mix up their calls.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApiServer, SCHEMA_VERSION, startApiServer, type ApiServer } from '../../runtime/src/api/index';
import { QUICKSTART_CONFIG, WsSession, buildTestGraph, postJson, postStream, resultsFor, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };

function lastText(messages: any[]): string {
  return messages
    .at(-1)
    .content.filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}

describe('a restart between the remote call and its result', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-threads-'));
  const db = join(folder, 'threads.sqlite');
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('the thread resumes on the new server, nothing lost', async () => {
    let server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('What time is it and where am I?')] });
    assert.equal(first.body.data.status, 'waiting');
    const { thread_id: threadId, pending_remote_calls: calls } = first.body.data;
    await server.close();

    server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    try {
      const second = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Bergen')], config: { thread_id: threadId } });
      assert.equal(second.status, 200);
      assert.equal(second.body.data.status, 'completed');
      const answer = lastText(second.body.data.messages);
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
    const threadId = first.chunks[0].data.thread_id;
    const calls = first.chunks.find((c) => c.event === 'remote_tool_calls').data.calls;
    await server.close();
    // Back to the first releases' schema, as a process that died mid-run left it.
    const raw = new Database(db);
    raw.exec(`ALTER TABLE threads ADD COLUMN running INTEGER NOT NULL DEFAULT 0; PRAGMA user_version = 1;`);
    raw.prepare('UPDATE threads SET running = 1 WHERE thread_id = ?').run(threadId);
    raw.close();

    server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db, token: '', log: quiet });
    try {
      const ws = await WsSession.open(server.url);
      const chunks = await ws.request('after-crash', { messages: [resultsFor(calls, () => 'clip')], config: { thread_id: threadId } });
      await ws.close();
      assert.deepEqual(
        chunks.map((c) => c.event),
        ['metadata', 'message', 'end'],
      );
      assert.match(lastText([chunks[1].data]), /read_clipboard: clip/);
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
      const { thread_id: threadId, pending_remote_calls: calls } = first.body.data;
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0].args, { query: `item-${i}` });
      const second = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, (call: any) => `result-for-${call.args.query}`)], config: { thread_id: threadId } });
      assert.equal(second.status, 200);
      assert.equal(second.body.data.thread_id, threadId);
      const answer = lastText(second.body.data.messages);
      assert.equal(answer, `Here is what the tools returned:\nsearch_local_database: result-for-item-${i}`);
      return threadId as string;
    });
    const threads = await Promise.all(runs);
    assert.equal(new Set(threads).size, 100);
  });

  test('requests multiplexed on one WebSocket keep to their own ids and threads', async () => {
    const ws = await WsSession.open(url);
    try {
      const runs = Array.from({ length: 20 }, async (_, i) => {
        const first = await ws.request(`a${i}`, { messages: [userText(`search for doc-${i}`)] });
        const threadId = first[0].data.thread_id;
        const calls = first.find((c) => c.event === 'remote_tool_calls').data.calls;
        assert.deepEqual(calls[0].args, { query: `doc-${i}` });
        const second = await ws.request(`b${i}`, { messages: [resultsFor(calls, () => `hit-${i}`)], config: { thread_id: threadId } });
        assert.ok(second.every((c) => c.request_id === `b${i}`));
        assert.equal(second[0].data.thread_id, threadId);
        assert.match(lastText([second[1].data]), new RegExp(`search_local_database: hit-${i}$`));
      });
      await Promise.all(runs);
    } finally {
      await ws.close();
    }
  });
});
