/**
 * The thread store contract, run against both stores: SQLite in a temporary file and
 * PostgreSQL in a cluster of its own. Then what only PostgreSQL does: lock leases that run
 * out, a commit refused after its lease was taken, and the schema versions it records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockLostError, PostgresThreadStore, SCHEMA_VERSION, SqliteThreadStore, StoreOpenError, parseStoreTarget, type ThreadStore } from '../../runtime/src/api/store/index';
import type { Message } from '../../runtime/src/graph/messages';
import { SQLITE_MIGRATIONS } from '../../runtime/src/api/store/migrations';
import { TestPostgres } from '../support/postgres';
import { poll } from '../support/poll';

function message(id: string, role: Message['role'] = 'user'): Message {
  return { message_id: id, role, content: [{ type: 'text', text: id }] };
}

const call = { id: 'call_1', name: 'lookup', args: { key: 'k' }, node: 'TOOL' };

/** The contract every store keeps. `open` gives a fresh, empty store. */
function contractSuite(name: string, open: () => Promise<ThreadStore>): void {
  describe(`the ${name} store`, () => {
    let store: ThreadStore;
    before(async () => {
      store = await open();
    });
    after(() => store.close());

    test('a new thread: acquire creates it locked, a second acquire is refused, release frees it', async () => {
      const first = await store.acquire('t-new', 'run-1');
      assert.equal(first?.status, 'new');
      assert.equal(first?.running, true);
      assert.deepEqual(first?.checkpoint, { state: { messages: [] }, pending: [] });
      assert.equal(await store.acquire('t-new', 'run-2'), undefined);
      await store.release('t-new', 'run-1');
      // Released before anything was stored: the empty thread is gone.
      assert.equal(await store.load('t-new'), undefined);
      const again = await store.acquire('t-new', 'run-3');
      assert.equal(again?.running, true);
      await store.release('t-new', 'run-3');
    });

    test('commit stores the messages from `from` on, the status and pending calls, and releases the lock', async () => {
      const locked = await store.acquire('t-commit', 'run-1');
      assert.ok(locked);
      await store.commit('t-commit', 'run-1', {
        checkpoint: { state: { messages: [message('m0'), message('m1', 'assistant')], counter: 3 }, interruptedAt: 'TOOL', pending: [call] },
        status: 'waiting',
        from: 0,
      });
      const record = await store.load('t-commit');
      assert.equal(record?.status, 'waiting');
      assert.equal(record?.running, false);
      assert.equal(record?.messageCount, 2);
      assert.deepEqual(record?.checkpoint, { state: { counter: 3, messages: [message('m0'), message('m1', 'assistant')] }, interruptedAt: 'TOOL', pending: [call] });

      const next = await store.acquire('t-commit', 'run-2');
      assert.equal(next?.messageCount, 2);
      await store.commit('t-commit', 'run-2', {
        checkpoint: { state: { messages: [message('m0'), message('m1', 'assistant'), message('m2', 'tool')], counter: 4 }, pending: [] },
        status: 'completed',
        from: 2,
        error: { code: 'model_error', message: 'The model failed.' },
      });
      const done = await store.load('t-commit');
      assert.equal(done?.status, 'completed');
      assert.deepEqual(done?.checkpoint.pending, []);
      assert.equal(done?.checkpoint.interruptedAt, undefined);
      assert.deepEqual(
        done?.checkpoint.state.messages.map((m) => m.message_id),
        ['m0', 'm1', 'm2'],
      );
      assert.deepEqual(done?.lastError, { code: 'model_error', message: 'The model failed.' });
      assert.ok(Date.parse(done!.updatedAt) >= Date.parse(done!.createdAt));
    });

    test('page reads a window of the messages with the status; an unknown thread is undefined', async () => {
      const owner = 'run-page';
      await store.acquire('t-page', owner);
      const messages = Array.from({ length: 25 }, (_, i) => message(`p${i}`));
      await store.commit('t-page', owner, { checkpoint: { state: { messages }, pending: [] }, status: 'completed', from: 0 });
      const page = await store.page('t-page', 10, 10);
      assert.equal(page?.messageCount, 25);
      assert.equal(page?.offset, 10);
      assert.deepEqual(
        page?.messages.map((m) => m.message_id),
        Array.from({ length: 10 }, (_, i) => `p${i + 10}`),
      );
      assert.deepEqual((await store.page('t-page', 20, 10))?.messages.length, 5);
      assert.deepEqual((await store.page('t-page', 30, 10))?.messages, []);
      assert.equal(await store.page('t-unknown', 0, 10), undefined);
    });

    test('delete removes a thread and its messages, refuses while a run holds it, and says when there is none', async () => {
      await store.acquire('t-delete', 'run-1');
      await store.commit('t-delete', 'run-1', { checkpoint: { state: { messages: [message('d0')] }, pending: [] }, status: 'completed', from: 0 });
      await store.acquire('t-delete', 'run-2');
      assert.equal(await store.delete('t-delete'), 'busy');
      await store.release('t-delete', 'run-2');
      assert.equal(await store.delete('t-delete'), 'deleted');
      assert.equal(await store.load('t-delete'), undefined);
      assert.equal(await store.delete('t-delete'), 'missing');
      // A thread of the same id starts afresh, without the old messages.
      const fresh = await store.acquire('t-delete', 'run-3');
      assert.equal(fresh?.messageCount, 0);
      await store.release('t-delete', 'run-3');
    });

    test('a release or renewal by a run that does not hold the lock changes nothing', async () => {
      await store.acquire('t-owner', 'run-1');
      await store.release('t-owner', 'someone-else');
      assert.equal(await store.acquire('t-owner', 'run-2'), undefined);
      assert.equal(await store.renew('t-owner', 'someone-else'), false);
      assert.equal(await store.renew('t-owner', 'run-1'), true);
      await store.release('t-owner', 'run-1');
    });

    test('an unseen thread: locked and running until its first commit stores it; a release leaves nothing', async () => {
      const first = await store.acquire('t-unseen', 'run-1', { unseen: true });
      assert.equal(first?.status, 'new');
      assert.equal(first?.running, true);
      assert.deepEqual(first?.checkpoint, { state: { messages: [] }, pending: [] });
      assert.equal(await store.acquire('t-unseen', 'run-2'), undefined);
      assert.equal(await store.acquire('t-unseen', 'run-3', { unseen: true }), undefined);
      assert.equal(await store.renew('t-unseen', 'run-2'), false);
      assert.equal(await store.renew('t-unseen', 'run-1'), true);
      assert.equal((await store.load('t-unseen'))?.running, true);
      assert.equal((await store.page('t-unseen', 0, 10))?.running, true);
      assert.equal(await store.delete('t-unseen'), 'busy');
      await assert.rejects(
        store.commit('t-unseen', 'someone-else', { checkpoint: { state: { messages: [message('x')] }, pending: [] }, status: 'completed', from: 0 }),
        (error: unknown) => error instanceof LockLostError,
      );
      await store.commit('t-unseen', 'run-1', {
        checkpoint: { state: { messages: [message('u0'), message('u1', 'assistant')], counter: 1 }, interruptedAt: 'TOOL', pending: [call] },
        status: 'waiting',
        from: 0,
      });
      const stored = await store.load('t-unseen');
      assert.equal(stored?.running, false);
      assert.equal(stored?.status, 'waiting');
      assert.deepEqual(stored?.checkpoint, { state: { counter: 1, messages: [message('u0'), message('u1', 'assistant')] }, interruptedAt: 'TOOL', pending: [call] });
      // Stored now: the next run takes it as any other thread, and resumes it.
      const next = await store.acquire('t-unseen', 'run-4');
      assert.equal(next?.messageCount, 2);
      await store.commit('t-unseen', 'run-4', {
        checkpoint: { state: { messages: [message('u0'), message('u1', 'assistant'), message('u2', 'tool')], counter: 2 }, pending: [] },
        status: 'completed',
        from: 2,
      });
      assert.deepEqual(
        (await store.load('t-unseen'))?.checkpoint.state.messages.map((m) => m.message_id),
        ['u0', 'u1', 'u2'],
      );

      await store.acquire('t-unseen-dropped', 'run-5', { unseen: true });
      await store.release('t-unseen-dropped', 'run-5');
      assert.equal(await store.load('t-unseen-dropped'), undefined);
      assert.equal(await store.page('t-unseen-dropped', 0, 10), undefined);
      assert.equal((await store.acquire('t-unseen-dropped', 'run-6'))?.status, 'new');
      await store.release('t-unseen-dropped', 'run-6');
    });

    test('50 concurrent acquires of one thread: exactly one wins', async () => {
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => store.acquire('t-race', `run-${i}`)));
      const winners = outcomes.flatMap((record, i) => (record ? [i] : []));
      assert.equal(winners.length, 1);
      await store.release('t-race', `run-${winners[0]}`);
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), '10xgraph-store-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

contractSuite('SQLite', async () => new SqliteThreadStore(join(folder, 'contract.sqlite')));
contractSuite('PostgreSQL', async () => PostgresThreadStore.open(cluster.url));

describe('PostgreSQL leases and schema', () => {
  test('a lock whose lease ran out is taken by the next run, and the first run can no longer commit', async () => {
    // Long enough that the second acquire, two round trips later, still finds it held on a loaded machine.
    const store = await PostgresThreadStore.open(cluster.url, { leaseMs: 1500 });
    try {
      assert.ok(await store.acquire('t-lease', 'dead-run'));
      assert.equal(await store.acquire('t-lease', 'next-run'), undefined);
      const taken = await poll('the lease to run out', () => store.acquire('t-lease', 'next-run'), 5000);
      assert.equal(taken.running, true);
      await assert.rejects(
        store.commit('t-lease', 'dead-run', { checkpoint: { state: { messages: [message('late')] }, pending: [] }, status: 'completed', from: 0 }),
        (error: unknown) => error instanceof LockLostError && /lost the lock of thread 't-lease'/.test(error.message),
      );
      assert.equal((await store.load('t-lease'))?.messageCount, 0);
      await store.commit('t-lease', 'next-run', { checkpoint: { state: { messages: [message('kept')] }, pending: [] }, status: 'completed', from: 0 });
      assert.deepEqual(
        (await store.load('t-lease'))?.checkpoint.state.messages.map((m) => m.message_id),
        ['kept'],
      );
    } finally {
      await store.close();
    }
  });

  test('a renewed lease is not taken', async () => {
    const store = await PostgresThreadStore.open(cluster.url, { leaseMs: 1000 });
    try {
      assert.ok(await store.acquire('t-renew', 'live-run'));
      const started = Date.now();
      // Renewing every 100 ms for two and a half leases: the lock is never free. Each lease is ten
      // pauses long, so a loaded machine's late round trip does not let it run out between two.
      while (Date.now() - started < 2500) {
        assert.equal(await store.renew('t-renew', 'live-run'), true);
        assert.equal(await store.acquire('t-renew', 'other-run'), undefined);
        await new Promise((wake) => setTimeout(wake, 100));
      }
      await store.release('t-renew', 'live-run');
    } finally {
      await store.close();
    }
  });

  test('records its schema version, and refuses a database of a newer one', async () => {
    const store = await PostgresThreadStore.open(cluster.url);
    await store.close();
    const versions = await cluster.query<{ version: number }>('SELECT version FROM tenxgraph_schema ORDER BY version');
    assert.deepEqual(
      versions.map((row) => row.version),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
    await cluster.query(`INSERT INTO tenxgraph_schema (version, description) VALUES (${SCHEMA_VERSION + 1}, 'from the future')`);
    try {
      await assert.rejects(PostgresThreadStore.open(cluster.url), (error: unknown) => {
        assert.ok(error instanceof StoreOpenError);
        assert.match(error.message, new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this 10xgraph knows \\(${SCHEMA_VERSION}\\)`));
        assert.doesNotMatch(error.message, /tenx-secret/);
        return true;
      });
    } finally {
      await cluster.query(`DELETE FROM tenxgraph_schema WHERE version = ${SCHEMA_VERSION + 1}`);
    }
  });

  test("a wrong password is refused with the server's reason, the password never shown", async () => {
    await assert.rejects(PostgresThreadStore.open(cluster.urlWithPassword('not-the-password')), (error: unknown) => {
      assert.ok(error instanceof StoreOpenError);
      assert.match(error.message, /password authentication failed for user "tenx"; check the user name and password in the URL/);
      assert.doesNotMatch(error.message, /not-the-password/);
      return true;
    });
  });
});

describe('SQLite schema versions', () => {
  test('a database of a newer schema is refused', async () => {
    const path = join(folder, 'newer.sqlite');
    await new SqliteThreadStore(path).close();
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(
      () => new SqliteThreadStore(path),
      (error: unknown) => error instanceof StoreOpenError && error.message.includes(`schema version ${SCHEMA_VERSION + 1}, newer than this 10xgraph knows (${SCHEMA_VERSION})`),
    );
  });

  test('a database of version 2 (messages WITHOUT ROWID) is brought to the current version with its threads and messages', async () => {
    const path = join(folder, 'version2.sqlite');
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(path);
    for (const migration of SQLITE_MIGRATIONS) if (migration.version <= 2) raw.exec(migration.sql);
    raw.pragma('user_version = 2');
    raw
      .prepare(
        "INSERT INTO threads (thread_id, status, pending_json, values_json, message_count, created_at, updated_at) VALUES ('t-old', 'completed', '[]', '{}', 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
      )
      .run();
    for (const seq of [2, 0, 1]) raw.prepare("INSERT INTO messages (thread_id, seq, body) VALUES ('t-old', ?, ?)").run(seq, JSON.stringify(message(`old${seq}`)));
    raw.close();

    const store = new SqliteThreadStore(path);
    try {
      const record = await store.load('t-old');
      assert.equal(record?.status, 'completed');
      // From before threads had users: it has none.
      assert.equal(record && 'userId' in record, false);
      assert.deepEqual(
        record?.checkpoint.state.messages.map((m) => m.message_id),
        ['old0', 'old1', 'old2'],
      );
      const owner = 'run-after-migration';
      await store.acquire('t-old', owner);
      await store.commit('t-old', owner, {
        checkpoint: { state: { messages: [...record!.checkpoint.state.messages, message('new3')] }, pending: [] },
        status: 'completed',
        from: 3,
      });
      assert.deepEqual(
        (await store.page('t-old', 2, 10))?.messages.map((m) => m.message_id),
        ['old2', 'new3'],
      );
    } finally {
      await store.close();
    }
    const migrated = new Database(path, { readonly: true });
    try {
      assert.equal(migrated.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const sql = (migrated.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages'").pluck().get() as string) ?? '';
      assert.match(sql, /PRIMARY KEY \(thread_id, seq\)/);
      assert.doesNotMatch(sql, /WITHOUT ROWID/i);
      assert.equal(migrated.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'messages_v3'").pluck().get(), 0);
    } finally {
      migrated.close();
    }
  });
});

describe('--db values', () => {
  test('postgres:// and postgresql:// are PostgreSQL, paths are SQLite, other URLs are refused', () => {
    assert.deepEqual(parseStoreTarget('postgres://u@h/db'), { kind: 'postgres', url: 'postgres://u@h/db' });
    assert.deepEqual(parseStoreTarget('POSTGRESQL://u@h/db'), { kind: 'postgres', url: 'POSTGRESQL://u@h/db' });
    assert.deepEqual(parseStoreTarget('data/threads.sqlite'), { kind: 'sqlite', path: 'data/threads.sqlite' });
    assert.deepEqual(parseStoreTarget(':memory:'), { kind: 'sqlite', path: ':memory:' });
    assert.throws(
      () => parseStoreTarget('mysql://root:hunter2@db/threads'),
      (error: unknown) => {
        assert.ok(error instanceof StoreOpenError);
        assert.equal(
          error.message,
          "The thread database 'mysql://root@db/threads' is a mysql:// URL; 10xgraph keeps threads in PostgreSQL (postgres://user:password@host:port/db) or in a SQLite file (a path).",
        );
        return true;
      },
    );
  });
});
