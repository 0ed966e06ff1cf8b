/**
 * The user of each thread (for `authorization: "ownership"`), run against both stores (SQLite in a
 * temporary file, PostgreSQL in a cluster of its own): `acquire` records the run's user when it
 * creates a thread and never changes it after, commits and rewrites keep it, `list` filters by it
 * through an index, and a database of schema version 3 is brought to version 4 with its threads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { LockLostError, PostgresThreadStore, SCHEMA_VERSION, SqliteThreadStore, type ThreadStore } from '../../runtime/src/api/store/index';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from '../../runtime/src/api/store/migrations';
import type { Message } from '../../runtime/src/graph/messages';
import { TestPostgres } from '../support/postgres';

function message(id: string): Message {
  return { message_id: id, role: 'user', content: [{ type: 'text', text: id }] };
}

function messages(...ids: string[]): Message[] {
  return ids.map((id) => message(id));
}

/** A store with nothing in it, and a way to set a thread's `updated_at` behind its back. */
interface Fixture {
  store: ThreadStore;
  setUpdatedAt(threadId: string, iso: string): Promise<void>;
}

/** What every store keeps of a thread's user. `open` gives a fresh, empty store. */
function ownerSuite(name: string, open: () => Promise<Fixture>): void {
  describe(`the ${name} store`, () => {
    let fixture: Fixture;
    let store: ThreadStore;
    before(async () => {
      fixture = await open();
      store = fixture.store;
    });
    after(() => store.close());

    /** Stores `ids` as a new thread's messages, the way a first run of `userId` does. */
    async function seed(threadId: string, userId: string | undefined, ids: string[]): Promise<void> {
      const held = await store.acquire(threadId, 'seed', userId === undefined ? {} : { userId });
      assert.equal(held?.status, 'new');
      await store.commit(threadId, 'seed', { checkpoint: { state: { messages: messages(...ids) }, pending: [] }, status: 'completed', from: 0 });
    }

    async function listed(userId: string | undefined, search?: string, offset = 0, limit = 50): Promise<Array<[string, string | undefined]>> {
      return (await store.list({ userId, search, offset, limit })).map((t) => [t.threadId, t.userId]);
    }

    test("acquire with a user creates the thread as that user's: while it runs, and in load, page and list once committed", async () => {
      const held = await store.acquire('o-alice', 'run-1', { userId: 'alice' });
      assert.equal(held?.status, 'new');
      assert.equal(held?.userId, 'alice');
      assert.equal((await store.load('o-alice'))?.userId, 'alice');
      assert.equal((await store.page('o-alice', 0, 10))?.userId, 'alice');
      await store.commit('o-alice', 'run-1', { checkpoint: { state: { messages: messages('a0') }, pending: [] }, status: 'completed', from: 0 });

      const loaded = await store.load('o-alice');
      assert.equal(loaded?.running, false);
      assert.equal(loaded?.userId, 'alice');
      assert.equal((await store.page('o-alice', 0, 10))?.userId, 'alice');
      assert.deepEqual(await listed(undefined, 'o-alice'), [['o-alice', 'alice']]);
      // The next run reads it as stored (SQLite: from its cache of recent threads).
      const next = await store.acquire('o-alice', 'run-2', { userId: 'alice' });
      assert.equal(next?.userId, 'alice');
      assert.equal(next?.messageCount, 1);
      await store.release('o-alice', 'run-2');
    });

    test("another user's acquire of an existing thread returns the first user, and nothing that run does changes it", async () => {
      await seed('o-kept', 'alice', ['k0']);
      const other = await store.acquire('o-kept', 'run-bob', { userId: 'bob' });
      assert.equal(other?.userId, 'alice');
      assert.equal(other?.messageCount, 1);
      // Were the caller to go on and commit, the thread would stay alice's.
      await store.commit('o-kept', 'run-bob', { checkpoint: { state: { messages: messages('k0', 'k1') }, pending: [] }, status: 'completed', from: 1 });
      assert.equal((await store.load('o-kept'))?.userId, 'alice');
      const anonymous = await store.acquire('o-kept', 'run-anonymous');
      assert.equal(anonymous?.userId, 'alice');
      await store.release('o-kept', 'run-anonymous');
      assert.deepEqual(await listed('alice', 'o-kept'), [['o-kept', 'alice']]);
      assert.deepEqual(await listed('bob', 'o-kept'), []);

      // A thread created without a user stays without one, whoever runs it next.
      await seed('o-nobody', undefined, ['n0']);
      const taken = await store.acquire('o-nobody', 'run-bob', { userId: 'bob' });
      assert.ok(taken);
      assert.equal('userId' in taken, false);
      await store.commit('o-nobody', 'run-bob', { checkpoint: { state: { messages: messages('n0', 'n1') }, pending: [] }, status: 'completed', from: 1 });
      const stored = await store.load('o-nobody');
      assert.ok(stored);
      assert.equal('userId' in stored, false);
      assert.deepEqual(await listed(undefined, 'o-nobody'), [['o-nobody', undefined]]);
    });

    test("an unseen thread is its run's user's while it runs, and the first commit stores the user", async () => {
      const held = await store.acquire('o-unseen', 'run-1', { unseen: true, userId: 'carol' });
      assert.equal(held?.userId, 'carol');
      assert.equal((await store.load('o-unseen'))?.userId, 'carol');
      assert.equal((await store.page('o-unseen', 0, 10))?.userId, 'carol');
      await store.commit('o-unseen', 'run-1', { checkpoint: { state: { messages: messages('u0') }, pending: [] }, status: 'waiting', from: 0 });
      const stored = await store.load('o-unseen');
      assert.equal(stored?.userId, 'carol');
      assert.equal(stored?.status, 'waiting');
      assert.deepEqual(await listed('carol', 'o-unseen'), [['o-unseen', 'carol']]);
      assert.equal((await store.acquire('o-unseen', 'run-2', { userId: 'mallory' }))?.userId, 'carol');
      await store.release('o-unseen', 'run-2');

      // A first commit that is a rewrite from 0 stores the user too.
      assert.ok(await store.acquire('o-unseen-rewrite', 'run-3', { unseen: true, userId: 'dave' }));
      await store.commit('o-unseen-rewrite', 'run-3', { checkpoint: { state: { messages: messages('r0') }, pending: [] }, status: 'completed', from: 0, rewrite: true });
      assert.equal((await store.load('o-unseen-rewrite'))?.userId, 'dave');

      // Released before any commit: nothing of the user is left.
      assert.ok(await store.acquire('o-unseen-dropped', 'run-4', { unseen: true, userId: 'erin' }));
      await store.release('o-unseen-dropped', 'run-4');
      assert.equal(await store.load('o-unseen-dropped'), undefined);
      assert.equal((await store.acquire('o-unseen-dropped', 'run-5', { userId: 'frank' }))?.userId, 'frank');
      await store.release('o-unseen-dropped', 'run-5');
    });

    test("a thread acquired and released before any commit is nobody's: the next acquire creates it as its own user's", async () => {
      assert.equal((await store.acquire('o-released', 'run-alice', { userId: 'alice' }))?.userId, 'alice');
      await store.release('o-released', 'run-alice');
      assert.equal((await store.acquire('o-released', 'run-bob', { userId: 'bob' }))?.userId, 'bob');
      await store.commit('o-released', 'run-bob', { checkpoint: { state: { messages: messages('b0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('o-released'))?.userId, 'bob');

      // Deleted, the id starts afresh, with the user of the run that creates it again.
      assert.equal(await store.delete('o-released'), 'deleted');
      assert.equal((await store.acquire('o-released', 'run-carol', { userId: 'carol' }))?.userId, 'carol');
      await store.commit('o-released', 'run-carol', { checkpoint: { state: { messages: messages('c0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('o-released'))?.userId, 'carol');
    });

    test('20 users acquiring one new thread at once: the one that wins creates it as its own', async () => {
      const users = Array.from({ length: 20 }, (_, i) => `racer-${i}`);
      const outcomes = await Promise.all(users.map((userId, i) => store.acquire('o-race', `run-${i}`, { userId })));
      const winners = outcomes.flatMap((record, i) => (record ? [i] : []));
      assert.equal(winners.length, 1);
      const winner = winners[0]!;
      assert.equal(outcomes[winner]?.userId, users[winner]);
      await store.commit('o-race', `run-${winner}`, { checkpoint: { state: { messages: messages('w0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('o-race'))?.userId, users[winner]);
    });

    test("list with a user lists exactly that user's committed threads, in the listing's order, with search, offset and limit", async () => {
      await seed('list-a1', 'lister-1', ['x']);
      await seed('list-a2', 'lister-1', []);
      await seed('list-a3', 'lister-1', ['x', 'y']);
      await seed('list-b1', 'lister-2', ['x']);
      await seed('list-n1', undefined, ['x']);
      await seed('list-c1', 'Lister-1', ['x']);
      await seed('list-p1', 'lister-%', ['x']);
      const times: Array<[string, string]> = [
        ['list-a1', '2026-03-01T00:00:00.000Z'],
        ['list-c1', '2026-03-02T00:00:00.000Z'],
        ['list-p1', '2026-03-02T00:00:00.000Z'],
        ['list-a2', '2026-03-03T00:00:00.000Z'],
        ['list-a3', '2026-03-03T00:00:00.000Z'],
        ['list-b1', '2026-03-04T00:00:00.000Z'],
        ['list-n1', '2026-03-05T00:00:00.000Z'],
      ];
      for (const [threadId, iso] of times) await fixture.setUpdatedAt(threadId, iso);
      // Acquired by lister-1 and never committed: not threads anyone lists.
      assert.ok(await store.acquire('list-a4', 'run-uncommitted', { userId: 'lister-1' }));
      assert.ok(await store.acquire('list-a5', 'run-unseen', { unseen: true, userId: 'lister-1' }));
      // A running thread is listed, and shown running.
      assert.ok(await store.acquire('list-a1', 'run-a1', { userId: 'lister-1' }));
      try {
        const mine = await store.list({ userId: 'lister-1', offset: 0, limit: 10 });
        assert.deepEqual(
          mine.map((t) => [t.threadId, t.userId, t.status, t.messageCount, t.running, t.updatedAt]),
          [
            ['list-a2', 'lister-1', 'completed', 0, false, '2026-03-03T00:00:00.000Z'],
            ['list-a3', 'lister-1', 'completed', 2, false, '2026-03-03T00:00:00.000Z'],
            ['list-a1', 'lister-1', 'completed', 1, true, '2026-03-01T00:00:00.000Z'],
          ],
        );
      } finally {
        await store.release('list-a1', 'run-a1');
        await store.release('list-a4', 'run-uncommitted');
        await store.release('list-a5', 'run-unseen');
      }
      assert.deepEqual(await listed('lister-1', undefined, 1, 1), [['list-a3', 'lister-1']]);
      assert.deepEqual(await listed('lister-1', undefined, 2, 5), [['list-a1', 'lister-1']]);
      assert.deepEqual(await listed('lister-1', undefined, 3, 5), []);
      assert.deepEqual(await listed('lister-1', 'A1'), [['list-a1', 'lister-1']]);
      assert.deepEqual(await listed('lister-1', 'list-b'), []);
      assert.deepEqual(await listed('lister-1', 'q'.repeat(10_000)), []);
      assert.deepEqual(await listed('lister-2'), [['list-b1', 'lister-2']]);
      // Exactly the user: no case folding, no pattern, no prefix.
      assert.deepEqual(await listed('Lister-1'), [['list-c1', 'Lister-1']]);
      assert.deepEqual(await listed('lister-%'), [['list-p1', 'lister-%']]);
      assert.deepEqual(await listed('lister'), []);
      assert.deepEqual(await listed('lister-_'), []);
      assert.deepEqual(await listed(''), []);
      // Without a user, every thread is listed, those without a user included.
      assert.deepEqual(await listed(undefined, 'list-'), [
        ['list-n1', undefined],
        ['list-b1', 'lister-2'],
        ['list-a2', 'lister-1'],
        ['list-a3', 'lister-1'],
        ['list-c1', 'Lister-1'],
        ['list-p1', 'lister-%'],
        ['list-a1', 'lister-1'],
      ]);
    });

    test("a delete naming a user deletes only that user's thread: another's (or nobody's) is missing and stays", async () => {
      await seed('o-del', 'alice', ['m1']);
      await seed('o-del-none', undefined, ['m1']);
      assert.equal(await store.delete('o-del', { userId: 'bob' }), 'missing');
      assert.equal(await store.delete('o-del', { userId: null }), 'missing');
      assert.equal((await store.load('o-del'))?.messageCount, 1);
      assert.equal(await store.delete('o-del-none', { userId: 'alice' }), 'missing');
      assert.equal(await store.delete('o-del', { userId: 'alice' }), 'deleted');
      assert.equal(await store.load('o-del'), undefined);
      assert.equal(await store.page('o-del', 0, 10), undefined);
      assert.equal(await store.delete('o-del-none', { userId: null }), 'deleted');
      assert.equal(await store.load('o-del-none'), undefined);
    });

    test('a rewrite keeps the user: as stored, as read back, and as the next run takes the thread', async () => {
      await seed('o-edit', 'erin', ['e0', 'e1', 'e2']);
      // A state edit takes the thread with its editor's user (or none): the thread stays erin's.
      const held = await store.acquire('o-edit', 'edit', { userId: 'erin' });
      assert.equal(held?.userId, 'erin');
      await store.commit('o-edit', 'edit', { checkpoint: { state: { messages: messages('e0', 'x1'), note: 'put' }, pending: [] }, status: 'completed', from: 1, rewrite: true });
      const record = await store.load('o-edit');
      assert.equal(record?.userId, 'erin');
      assert.deepEqual(
        record?.checkpoint.state.messages.map((m) => m.message_id),
        ['e0', 'x1'],
      );
      assert.equal((await store.page('o-edit', 0, 10))?.userId, 'erin');
      assert.deepEqual(
        (await store.list({ userId: 'erin', search: 'o-edit', offset: 0, limit: 10 })).map((t) => [t.threadId, t.messageCount]),
        [['o-edit', 2]],
      );

      const cleared = await store.acquire('o-edit', 'clear');
      assert.equal(cleared?.userId, 'erin');
      await store.commit('o-edit', 'clear', { checkpoint: { state: { messages: [] }, pending: [] }, status: 'completed', from: 0, rewrite: true });
      const next = await store.acquire('o-edit', 'run', { userId: 'erin' });
      assert.equal(next?.userId, 'erin');
      assert.equal(next?.messageCount, 0);
      await store.commit('o-edit', 'run', { checkpoint: { state: { messages: messages('z0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('o-edit'))?.userId, 'erin');

      // A refused rewrite changes nothing of it either.
      assert.ok(await store.acquire('o-edit', 'gap', { userId: 'mallory' }));
      await assert.rejects(
        store.commit('o-edit', 'gap', { checkpoint: { state: { messages: messages('z0', 'a', 'b') }, pending: [] }, status: 'completed', from: 2, rewrite: true }),
        (error: unknown) => error instanceof RangeError,
      );
      assert.equal((await store.load('o-edit'))?.userId, 'erin');
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), '10xgraph-store-owner-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

ownerSuite('SQLite', async () => {
  const path = join(folder, 'owner.sqlite');
  return {
    store: new SqliteThreadStore(path),
    // A second connection to the file: the store keeps only a lock file to itself.
    async setUpdatedAt(threadId, iso) {
      const db = new Database(path);
      try {
        db.prepare('UPDATE threads SET updated_at = ? WHERE thread_id = ?').run(iso, threadId);
      } finally {
        db.close();
      }
    },
  };
});

ownerSuite('PostgreSQL', async () => {
  await cluster.reset();
  return {
    store: await PostgresThreadStore.open(cluster.url),
    async setUpdatedAt(threadId, iso) {
      await cluster.query('UPDATE tenxgraph_threads SET updated_at = $2 WHERE thread_id = $1', [threadId, iso]);
    },
  };
});

/** The store's own SQLite connection and its prepared listing of one user's threads. */
function sqliteInsides(store: SqliteThreadStore): { db: Database.Database; listOfUser: Database.Statement } {
  const inside = store as unknown as { db: Database.Database; statements: { listOfUser: Database.Statement } };
  return { db: inside.db, listOfUser: inside.statements.listOfUser };
}

describe('SQLite schema version 4', () => {
  test("a database of version 3 is brought to version 4: its threads intact and without a user, a never-committed row taken as the next run's", async () => {
    const path = join(folder, 'version3.sqlite');
    const raw = new Database(path);
    for (const migration of SQLITE_MIGRATIONS) if (migration.version <= 3) raw.exec(migration.sql);
    raw.pragma('user_version = 3');
    raw
      .prepare(
        "INSERT INTO threads (thread_id, status, pending_json, values_json, message_count, created_at, updated_at) VALUES ('t-old', 'completed', '[]', '{\"note\":1}', 2, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')",
      )
      .run();
    for (const seq of [0, 1]) raw.prepare("INSERT INTO messages (thread_id, seq, body) VALUES ('t-old', ?, ?)").run(seq, JSON.stringify(message(`old${seq}`)));
    // A row of status 'new', as the first versions wrote for a thread acquired and never committed.
    raw.prepare("INSERT INTO threads (thread_id, status, created_at, updated_at) VALUES ('t-left', 'new', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')").run();
    raw.close();

    const store = new SqliteThreadStore(path);
    try {
      const record = await store.load('t-old');
      assert.ok(record);
      assert.equal('userId' in record, false);
      assert.deepEqual(record.checkpoint, { state: { note: 1, messages: messages('old0', 'old1') }, pending: [] });
      assert.equal(record.createdAt, '2026-01-01T00:00:00.000Z');
      assert.deepEqual(
        (await store.list({ offset: 0, limit: 10 })).map((t) => [t.threadId, t.userId, t.messageCount]),
        [['t-old', undefined, 2]],
      );
      assert.deepEqual(await store.list({ userId: 'bob', offset: 0, limit: 10 }), []);

      // Run by a user now, it stays a thread without one.
      const taken = await store.acquire('t-old', 'run-bob', { userId: 'bob' });
      assert.ok(taken);
      assert.equal('userId' in taken, false);
      await store.commit('t-old', 'run-bob', { checkpoint: { state: { messages: messages('old0', 'old1', 'new2') }, pending: [] }, status: 'completed', from: 2 });
      const after = await store.load('t-old');
      assert.ok(after);
      assert.equal('userId' in after, false);
      assert.deepEqual(
        after.checkpoint.state.messages.map((m) => m.message_id),
        ['old0', 'old1', 'new2'],
      );

      // The never-committed row is no one's thread yet: the run that commits it first makes it its user's.
      assert.equal((await store.acquire('t-left', 'run-carol', { userId: 'carol' }))?.userId, 'carol');
      await store.commit('t-left', 'run-carol', { checkpoint: { state: { messages: messages('c0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('t-left'))?.userId, 'carol');
      assert.deepEqual(
        (await store.list({ userId: 'carol', offset: 0, limit: 10 })).map((t) => t.threadId),
        ['t-left'],
      );
    } finally {
      await store.close();
    }

    const migrated = new Database(path, { readonly: true });
    try {
      assert.equal(migrated.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.equal(SCHEMA_VERSION, 4);
      const columns = (migrated.prepare('PRAGMA table_info(threads)').all() as Array<{ name: string; notnull: number }>).filter((c) => c.name === 'user_id');
      assert.deepEqual(
        columns.map((c) => c.notnull),
        [0],
      );
      assert.deepEqual((migrated.prepare("SELECT name FROM pragma_index_list('threads') WHERE origin = 'c'").pluck().all() as string[]).sort(), ['threads_user_updated']);
    } finally {
      migrated.close();
    }

    // Opened again, it is at version 4 already and the users are where they were.
    const again = new SqliteThreadStore(path);
    try {
      assert.equal((await again.load('t-left'))?.userId, 'carol');
      assert.equal((await again.acquire('t-left', 'run-2'))?.userId, 'carol');
      await again.release('t-left', 'run-2');
    } finally {
      await again.close();
    }
  });

  test("one user's listing among 20,000 threads reads the index in order: no scan of the table, no sort", async () => {
    const path = join(folder, 'many.sqlite');
    const store = new SqliteThreadStore(path);
    try {
      const { db, listOfUser } = sqliteInsides(store);
      // 200 users with 50 threads each, and 10,000 threads without a user.
      db.prepare(
        `WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
         INSERT INTO threads (thread_id, status, message_count, user_id, created_at, updated_at)
         SELECT printf('t%05d', i), 'completed', 0, CASE WHEN i % 2 = 0 THEN 'user-' || (i / 2 % 200) END, '2026-01-01T00:00:00.000Z',
           strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i / 7) || ' minutes')
         FROM n`,
      ).run();
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${listOfUser.source}`).all('user-7', '%', 10, 0) as Array<{ detail: string }>).map((row) => row.detail);
      assert.ok(
        plan.some((detail) => /^SEARCH threads USING (COVERING )?INDEX threads_user_updated \(user_id=\?\)$/.test(detail)),
        plan.join('\n'),
      );
      assert.ok(!plan.some((detail) => /^SCAN threads|TEMP B-TREE/.test(detail)), plan.join('\n'));

      const everything = await store.list({ offset: 0, limit: 20_000 });
      const expected = everything.filter((t) => t.userId === 'user-7').map((t) => t.threadId);
      assert.equal(expected.length, 50);
      assert.deepEqual(
        (await store.list({ userId: 'user-7', offset: 5, limit: 10 })).map((t) => t.threadId),
        expected.slice(5, 15),
      );
      assert.deepEqual(
        (await store.list({ userId: 'user-7', search: '1', offset: 0, limit: 50 })).map((t) => t.threadId),
        expected.filter((id) => id.includes('1')),
      );
    } finally {
      await store.close();
    }
  });
});

/** Runs `sql` in the test database as its owner (`tenx`), as the stores connect. */
async function asOwner(sql: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(sql, values);
  } finally {
    await client.end();
  }
}

describe('PostgreSQL schema version 4', () => {
  test("a database of version 3 is brought to version 4: its threads intact and without a user, a never-committed row taken as the next run's", async () => {
    await cluster.reset();
    await asOwner('CREATE TABLE tenxgraph_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 3)) {
      await asOwner(migration.sql);
      await asOwner('INSERT INTO tenxgraph_schema (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
    }
    await asOwner(
      `INSERT INTO tenxgraph_threads (thread_id, status, values_json, message_count, created_at, updated_at)
       VALUES ('t-old', 'completed', '{"note":1}', 2, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')`,
    );
    await asOwner("INSERT INTO tenxgraph_messages (thread_id, seq, body) VALUES ('t-old', 0, $1), ('t-old', 1, $2)", [
      JSON.stringify(message('old0')),
      JSON.stringify(message('old1')),
    ]);
    // Acquired by a version 3 process that died before its commit, its lease run out.
    await asOwner("INSERT INTO tenxgraph_threads (thread_id, lock_owner, lock_expires) VALUES ('t-left', 'dead-run', now() - interval '1 minute')");

    const store = await PostgresThreadStore.open(cluster.url);
    try {
      const versions = await cluster.query<{ version: number }>('SELECT version FROM tenxgraph_schema ORDER BY version');
      assert.deepEqual(
        versions.map((row) => row.version),
        [1, 2, 3, 4],
      );
      const record = await store.load('t-old');
      assert.ok(record);
      assert.equal('userId' in record, false);
      assert.deepEqual(record.checkpoint, { state: { note: 1, messages: messages('old0', 'old1') }, pending: [] });
      assert.equal(record.createdAt, '2026-01-01T00:00:00.000Z');
      assert.deepEqual(
        (await store.list({ offset: 0, limit: 10 })).map((t) => [t.threadId, t.userId, t.messageCount]),
        [['t-old', undefined, 2]],
      );
      assert.deepEqual(await store.list({ userId: 'bob', offset: 0, limit: 10 }), []);

      const taken = await store.acquire('t-old', 'run-bob', { userId: 'bob' });
      assert.ok(taken);
      assert.equal('userId' in taken, false);
      await store.commit('t-old', 'run-bob', { checkpoint: { state: { messages: messages('old0', 'old1', 'new2') }, pending: [] }, status: 'completed', from: 2 });
      const after = await store.load('t-old');
      assert.ok(after);
      assert.equal('userId' in after, false);
      assert.deepEqual(
        after.checkpoint.state.messages.map((m) => m.message_id),
        ['old0', 'old1', 'new2'],
      );

      assert.equal((await store.acquire('t-left', 'run-carol', { userId: 'carol' }))?.userId, 'carol');
      await store.commit('t-left', 'run-carol', { checkpoint: { state: { messages: messages('c0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('t-left'))?.userId, 'carol');
    } finally {
      await store.close();
    }
    const column = await cluster.query<{ is_nullable: string; data_type: string }>(
      "SELECT is_nullable, data_type FROM information_schema.columns WHERE table_name = 'tenxgraph_threads' AND column_name = 'user_id'",
    );
    assert.deepEqual(column, [{ is_nullable: 'YES', data_type: 'text' }]);
    const indexes = await cluster.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'tenxgraph_threads' AND indexname LIKE '%user%'");
    assert.deepEqual(indexes, [{ indexname: 'tenxgraph_threads_user_updated' }]);
  });

  test("a run that died before its first commit leaves the thread nobody's: the run that takes it after the lease creates it as its user's", async () => {
    await cluster.reset();
    const store = await PostgresThreadStore.open(cluster.url);
    try {
      assert.equal((await store.acquire('t-dead', 'dead-run', { userId: 'alice' }))?.userId, 'alice');
      assert.equal(await store.acquire('t-dead', 'run-bob', { userId: 'bob' }), undefined);
      // The lease runs out (the database's clock, moved rather than waited for).
      await cluster.query("UPDATE tenxgraph_threads SET lock_expires = now() - interval '1 second' WHERE thread_id = 't-dead'");
      assert.equal((await store.acquire('t-dead', 'run-bob', { userId: 'bob' }))?.userId, 'bob');
      await assert.rejects(
        store.commit('t-dead', 'dead-run', { checkpoint: { state: { messages: messages('late') }, pending: [] }, status: 'completed', from: 0 }),
        (error: unknown) => error instanceof LockLostError,
      );
      await store.commit('t-dead', 'run-bob', { checkpoint: { state: { messages: messages('b0') }, pending: [] }, status: 'completed', from: 0 });
      assert.equal((await store.load('t-dead'))?.userId, 'bob');

      // Once committed, a lease that runs out changes nothing of the user.
      assert.ok(await store.acquire('t-dead', 'dead-run-2', { userId: 'bob' }));
      await cluster.query("UPDATE tenxgraph_threads SET lock_expires = now() - interval '1 second' WHERE thread_id = 't-dead'");
      assert.equal((await store.acquire('t-dead', 'run-carol', { userId: 'carol' }))?.userId, 'bob');
      await store.release('t-dead', 'run-carol');
      assert.equal((await store.load('t-dead'))?.userId, 'bob');
    } finally {
      await store.close();
    }
  });

  test("one user's listing among 40,000 threads reads only that user's rows, through the index (in order, for a custom plan): no scan of the table", async () => {
    await cluster.reset();
    // One connection: the store's named statement is prepared on it, where EXPLAIN EXECUTE finds it.
    const store = await PostgresThreadStore.open(cluster.url, { maxConnections: 1 });
    try {
      // 200 users with 100 threads each, and 20,000 threads without a user.
      await cluster.query(
        `INSERT INTO tenxgraph_threads (thread_id, status, user_id, updated_at)
         SELECT 't' || lpad(i::text, 5, '0'), 'completed', CASE WHEN i % 2 = 0 THEN 'user-' || (i / 2 % 200) END, '2026-01-01'::timestamptz + (i / 7) * interval '1 minute'
         FROM generate_series(0, 39999) AS i`,
      );
      await cluster.query('ANALYZE tenxgraph_threads');
      const everything = await store.list({ offset: 0, limit: 40_000 });
      const expected = everything.filter((t) => t.userId === 'user-7').map((t) => t.threadId);
      assert.equal(expected.length, 100);
      assert.deepEqual(
        (await store.list({ userId: 'user-7', offset: 5, limit: 10 })).map((t) => t.threadId),
        expected.slice(5, 15),
      );
      assert.deepEqual(
        (await store.list({ userId: 'user-7', search: '1', offset: 0, limit: 100 })).map((t) => t.threadId),
        expected.filter((id) => id.includes('1')),
      );

      const pool = (store as unknown as { pool: pg.Pool }).pool;
      const explain = async () =>
        (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) EXECUTE "tenxgraph_listOfUser"('%', 0, 10, 'user-7')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      // With the page's bounds known, the index is read in the listing's order and the scan stops at the page's end.
      await pool.query('SET plan_cache_mode = force_custom_plan');
      const custom = await explain();
      assert.match(custom, /Index Scan using tenxgraph_threads_user_updated on tenxgraph_threads/, custom);
      assert.match(custom, /Index Cond: \(user_id = 'user-7'::text\)/, custom);
      assert.doesNotMatch(custom, /Seq Scan|Sort|Bitmap/, custom);
      // The plan made once for any user and page (taken after five runs, when it costs no more) may
      // sort the user's rows rather than read them in order, but reads only those, through the index.
      await pool.query('SET plan_cache_mode = force_generic_plan');
      const generic = await explain();
      assert.match(generic, /(Bitmap Index|Index) Scan (using|on) tenxgraph_threads_user_updated/, generic);
      assert.match(generic, /Index Cond: \(user_id = \$4\)/, generic);
      assert.doesNotMatch(generic, /Seq Scan/, generic);
      await pool.query('RESET plan_cache_mode');
    } finally {
      await store.close();
    }
  });
});
