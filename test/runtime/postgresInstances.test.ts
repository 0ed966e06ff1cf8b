/**
 * Several `10xgraph api` processes on one PostgreSQL database (a cluster of the test's own):
 * a run stopped on instance A is resumed by results sent to instance B, two runs on one thread
 * across instances give one 409, a process killed mid-run frees its thread within the lease,
 * and 100 threads spread over four instances lose and duplicate no message. Then faults: the
 * database down at start-up, restarted mid-conversation, a wrong password, a newer schema.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SCHEMA_VERSION } from '../../runtime/src/api/index';
import { ApiProcess } from '../hardening/netSupport/apiProcess';
import { poll } from '../support/poll';
import { TestPostgres } from '../support/postgres';
import { runCli } from '../support/run';
import { postJson, findRemoteCalls, resultsFor, userText } from './serverHelpers';

const AGENT = resolve(__dirname, 'storeAgent', '10xgraph.json');
/**
 * The lease the instances run with, in seconds: a killed instance holds its threads this long at
 * most. Long enough that on a loaded machine the lock still holds when the test checks it is held
 * (after a kill, a pipe read and a request to the other instance).
 */
const LEASE_SECONDS = 5;
const folder = mkdtempSync(join(tmpdir(), '10xgraph-pg-instances-'));
let cluster: TestPostgres;

function text(message: any): string {
  return message.content
    .filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}

async function startInstances(count: number): Promise<ApiProcess[]> {
  return Promise.all(Array.from({ length: count }, () => new ApiProcess({ config: AGENT, db: cluster.url, args: ['--thread-lease', String(LEASE_SECONDS)] }).start()));
}

async function stopAll(instances: ApiProcess[]): Promise<void> {
  await Promise.all(instances.map((instance) => instance.stop()));
}

before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('two instances on one database', () => {
  let a: ApiProcess;
  let b: ApiProcess;
  before(async () => {
    await cluster.reset();
    [a, b] = await startInstances(2);
    assert.match(a.stdout, new RegExp(`Threads in PostgreSQL at postgres://tenx@127\\.0\\.0\\.1:${cluster.port}/threads`));
    assert.doesNotMatch(a.stdout + a.stderr, /tenx-secret/);
  });
  after(() => stopAll([a, b]));

  test('a run stopped on a remote call on A is resumed by the results sent to B', async () => {
    const asked = await postJson(`${a.url}/v1/graph/invoke`, { messages: [userText('[t:cross]')], config: { thread_id: 'cross' } });
    const calls = findRemoteCalls(asked.body.data.messages);
    assert.deepEqual(
      calls.map((c) => c.args),
      [{ key: 'cross' }],
    );
    const answered = await postJson(`${b.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'from-b')], config: { thread_id: 'cross' } });
    assert.equal(answered.status, 200);
    assert.deepEqual(findRemoteCalls(answered.body.data.messages), []);
    assert.equal(text(answered.body.data.messages.at(-1)), 'answer cross: from-b');
    const thread = await (await fetch(`${a.url}/v1/threads/cross`)).json();
    assert.equal(thread.data.thread_data.thread.metadata.message_count, 5);
    assert.equal(thread.data.thread_data.thread.metadata.status, 'completed');
  });

  test('a run in flight on A makes the same thread 409 THREAD_BUSY on B; B runs it once A is done', async () => {
    const release = join(folder, 'release-busy');
    const held = postJson(`${a.url}/v1/graph/invoke`, { messages: [userText(`[t:busy] [hold:${release}]`)], config: { thread_id: 'busy' } });
    await a.waitForOutput(/HOLD busy/);
    const refused = await postJson(`${b.url}/v1/graph/invoke`, { messages: [userText('[t:busy]')], config: { thread_id: 'busy' } });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'THREAD_BUSY');
    const shown = await (await fetch(`${b.url}/v1/threads/busy`)).json();
    assert.equal(shown.data.thread_data.thread.metadata.running, true);
    writeFileSync(release, '');
    const first = await held;
    const calls = findRemoteCalls(first.body.data.messages);
    assert.equal(calls.length, 1);
    const resumed = await postJson(`${b.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'ok')], config: { thread_id: 'busy' } });
    assert.equal(resumed.status, 200);
    assert.equal(text(resumed.body.data.messages.at(-1)), 'answer busy: ok');
  });

  test(`an instance killed mid-run leaves its thread locked no longer than the lease (${LEASE_SECONDS} s), with nothing half-written`, async () => {
    const never = join(folder, 'never-released');
    void postJson(`${a.url}/v1/graph/invoke`, { messages: [userText(`[t:killed] [hold:${never}]`)], config: { thread_id: 'killed' } }).catch(() => undefined);
    await a.waitForOutput(/HOLD killed/);
    await a.kill();
    const refused = await postJson(`${b.url}/v1/graph/invoke`, { messages: [userText('[t:killed]')], config: { thread_id: 'killed' } });
    assert.equal(refused.status, 409);
    const taken = await poll(
      'the lease of the killed run to run out',
      async () => {
        const answer = await postJson(`${b.url}/v1/graph/invoke`, { messages: [userText('[t:killed]')], config: { thread_id: 'killed' } });
        return answer.status === 200 ? answer : undefined;
      },
      LEASE_SECONDS * 1000 * 5,
      100,
    );
    assert.equal(findRemoteCalls(taken.body.data.messages).length, 1);
    // The killed run stored nothing: the thread holds only the new run's messages.
    const rows = await cluster.query<{ seq: number }>("SELECT seq FROM tenxgraph_messages WHERE thread_id = 'killed' ORDER BY seq");
    assert.deepEqual(
      rows.map((row) => row.seq),
      [0, 1, 2],
    );
    await a.start();
  });
});

describe('four instances, 100 threads at once', () => {
  let instances: ApiProcess[];
  before(async () => {
    await cluster.reset();
    instances = await startInstances(4);
  });
  after(() => stopAll(instances));

  test('each thread asks on one instance and answers on the next; the database holds every message once', async () => {
    const runs = Array.from({ length: 100 }, async (_, i) => {
      const ask = instances[i % 4]!;
      const answer = instances[(i + 1) % 4]!;
      const threadId = `load-${i}`;
      const asked = await postJson(`${ask.url}/v1/graph/invoke`, { messages: [userText(`[t:k${i}]`)], config: { thread_id: threadId } });
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.deepEqual(
        calls.map((call) => call.args),
        [{ key: `k${i}` }],
      );
      const done = await postJson(`${answer.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => `v${i}`)], config: { thread_id: threadId } });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(text(done.body.data.messages.at(-1)), `answer k${i}: v${i}`);
    });
    await Promise.all(runs);
    const [counts] = await cluster.query<{ threads: number; messages: number; ids: number; completed: number; locked: number }>(`
      SELECT (SELECT count(*)::int FROM tenxgraph_threads) AS threads,
             (SELECT count(*)::int FROM tenxgraph_messages) AS messages,
             (SELECT count(DISTINCT (body::json ->> 'message_id'))::int FROM tenxgraph_messages) AS ids,
             (SELECT count(*)::int FROM tenxgraph_threads WHERE status = 'completed' AND message_count = 5) AS completed,
             (SELECT count(*)::int FROM tenxgraph_threads WHERE lock_owner IS NOT NULL) AS locked`);
    assert.deepEqual(counts, { threads: 100, messages: 500, ids: 500, completed: 100, locked: 0 });
    const gaps = await cluster.query(`SELECT thread_id FROM tenxgraph_messages GROUP BY thread_id HAVING array_agg(seq ORDER BY seq) <> ARRAY[0, 1, 2, 3, 4]`);
    assert.deepEqual(gaps, []);
  });
});

describe('database faults', () => {
  test('the database restarted mid-conversation: a clear 503, then the same request succeeds', async () => {
    await cluster.reset();
    const [server] = await startInstances(1);
    try {
      const asked = await postJson(`${server!.url}/v1/graph/invoke`, { messages: [userText('[t:restart]')], config: { thread_id: 'restart' } });
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.equal(calls.length, 1);
      cluster.stopServer();
      const down = await postJson(`${server!.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'after')], config: { thread_id: 'restart' } });
      assert.equal(down.status, 503);
      assert.equal(down.body.error.code, 'TRANSIENT_STORAGE_ERROR');
      assert.match(
        down.body.error.message,
        new RegExp(`^The PostgreSQL database postgres://tenx@127\\.0\\.0\\.1:${cluster.port}/threads cannot be reached \\(.+\\); try again once it is back\\.$`),
      );
      const reading = await fetch(`${server!.url}/v1/threads/restart`);
      assert.equal(reading.status, 503);
      // A new thread (its id made by the server) is refused the same way while the database is down.
      const fresh = await postJson(`${server!.url}/v1/graph/invoke`, { messages: [userText('[t:new-while-down]')] });
      assert.equal(fresh.status, 503);
      assert.equal(fresh.body.error.code, 'TRANSIENT_STORAGE_ERROR');
      cluster.startServer();
      const freshBack = await postJson(`${server!.url}/v1/graph/invoke`, { messages: [userText('[t:new-after]')] });
      assert.equal(freshBack.status, 200, JSON.stringify(freshBack.body));
      assert.equal(findRemoteCalls(freshBack.body.data.messages).length, 1);
      const stored = await cluster.query<{ status: string }>('SELECT status FROM tenxgraph_threads WHERE thread_id = $1', [freshBack.body.data.meta.thread_id]);
      assert.deepEqual(stored, [{ status: 'waiting' }]);
      const back = await postJson(`${server!.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'after')], config: { thread_id: 'restart' } });
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.equal(text(back.body.data.messages.at(-1)), 'answer restart: after');
      assert.ok(server!.alive);
    } finally {
      await server!.stop();
    }
  });

  test('the database down at start-up: exit 2 with what is wrong and where', async () => {
    cluster.stopServer();
    try {
      const result = await runCli(['api', '--config', AGENT, '--port', '0', '--db', cluster.url], { env: { TENXGRAPH_TOKEN: '' } });
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        new RegExp(
          `^10xgraph api: Cannot use the PostgreSQL database postgres://tenx@127\\.0\\.0\\.1:${cluster.port}/threads: nothing accepts connections there \\(.*ECONNREFUSED.*\\); check that PostgreSQL is running and the host and port\\.\\n$`,
        ),
      );
      assert.doesNotMatch(result.stderr, /tenx-secret/);
    } finally {
      cluster.startServer();
    }
  });

  test('a wrong password, through TENXGRAPH_DATABASE_URL: exit 2, the password never printed', async () => {
    const result = await runCli(['api', '--config', AGENT, '--port', '0'], { env: { TENXGRAPH_TOKEN: '', TENXGRAPH_DATABASE_URL: cluster.urlWithPassword('wrong-pass') } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /password authentication failed for user "tenx"; check the user name and password in the URL\.\n$/);
    assert.doesNotMatch(result.stderr + result.stdout, /wrong-pass/);
  });

  test('a schema from a newer version: exit 2, the database untouched', async () => {
    await cluster.reset();
    const [server] = await startInstances(1);
    await server!.stop();
    await cluster.query(`INSERT INTO tenxgraph_schema (version, description) VALUES (${SCHEMA_VERSION + 5}, 'from the future')`);
    const result = await runCli(['api', '--config', AGENT, '--port', '0', '--db', cluster.url], { env: { TENXGRAPH_TOKEN: '' } });
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      new RegExp(
        `has schema version ${SCHEMA_VERSION + 5}, newer than this 10xgraph knows \\(${SCHEMA_VERSION}\\): it was written by a newer 10xgraph; upgrade 10xgraph or use another database\\.\\n$`,
      ),
    );
    const versions = await cluster.query<{ version: number }>('SELECT version FROM tenxgraph_schema ORDER BY version');
    assert.deepEqual(
      versions.map((row) => row.version),
      [...Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), SCHEMA_VERSION + 5],
    );
  });
});
