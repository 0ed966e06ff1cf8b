/**
 * Listing threads and rewriting a thread's messages, run against both stores (SQLite in a
 * temporary file, PostgreSQL in a cluster of its own): what the thread list and the thread edit
 * routes (delete a message, fix, clear, put state) stand on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LockLostError, PostgresThreadStore, SqliteThreadStore, type ThreadStore } from '../../runtime/src/api/store/index';
import type { Message } from '../../runtime/src/graph/messages';
import { TestPostgres } from '../support/postgres';

function message(id: string, role: Message['role'] = 'user'): Message {
  return { message_id: id, role, content: [{ type: 'text', text: id }] };
}

function messages(...ids: string[]): Message[] {
  return ids.map((id) => message(id));
}

/** A store with nothing in it, and a way to set a thread's `updated_at` behind its back. */
interface Fixture {
  store: ThreadStore;
  setUpdatedAt(threadId: string, iso: string): Promise<void>;
}

/** The list and rewrite behaviour every store keeps. `open` gives a fresh, empty store. */
function listRewriteSuite(name: string, open: () => Promise<Fixture>): void {
  describe(`the ${name} store`, () => {
    let fixture: Fixture;
    let store: ThreadStore;
    before(async () => {
      fixture = await open();
      store = fixture.store;
    });
    after(() => store.close());

    /** Stores `ids` as a thread's messages, the way a first run does. */
    async function seed(threadId: string, ids: string[], status: 'completed' | 'waiting' = 'completed'): Promise<void> {
      assert.ok(await store.acquire(threadId, 'seed'));
      await store.commit(threadId, 'seed', { checkpoint: { state: { messages: messages(...ids) }, pending: [] }, status, from: 0 });
    }

    async function idsOf(threadId: string): Promise<string[] | undefined> {
      return (await store.load(threadId))?.checkpoint.state.messages.map((m) => m.message_id);
    }

    test('list: most recently updated first, ties by id, paginated; uncommitted threads are not listed; running is shown', async () => {
      await seed('b', ['b0']);
      await seed('a', ['a0', 'a1'], 'waiting');
      await seed('c', []);
      await seed('d', ['d0']);
      await fixture.setUpdatedAt('c', '2026-03-03T00:00:00.000Z');
      await fixture.setUpdatedAt('a', '2026-03-02T00:00:00.000Z');
      await fixture.setUpdatedAt('b', '2026-03-02T00:00:00.000Z');
      await fixture.setUpdatedAt('d', '2026-03-01T00:00:00.000Z');
      // Acquired, plainly and unseen, with nothing committed: not threads anyone lists yet.
      assert.ok(await store.acquire('e-acquired', 'run-e'));
      assert.ok(await store.acquire('f-unseen', 'run-f', { unseen: true }));
      assert.ok(await store.acquire('a', 'run-a'));
      try {
        const all = await store.list({ offset: 0, limit: 10 });
        assert.deepEqual(
          all.map((t) => [t.threadId, t.status, t.messageCount, t.running, t.updatedAt]),
          [
            ['c', 'completed', 0, false, '2026-03-03T00:00:00.000Z'],
            ['a', 'waiting', 2, true, '2026-03-02T00:00:00.000Z'],
            ['b', 'completed', 1, false, '2026-03-02T00:00:00.000Z'],
            ['d', 'completed', 1, false, '2026-03-01T00:00:00.000Z'],
          ],
        );
        for (const thread of all) assert.match(thread.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.deepEqual(
          (await store.list({ offset: 1, limit: 2 })).map((t) => t.threadId),
          ['a', 'b'],
        );
        assert.deepEqual(
          (await store.list({ offset: 3, limit: 2 })).map((t) => t.threadId),
          ['d'],
        );
        assert.deepEqual(await store.list({ offset: 4, limit: 2 }), []);
      } finally {
        await store.release('a', 'run-a');
        await store.release('e-acquired', 'run-e');
        await store.release('f-unseen', 'run-f');
      }
      assert.deepEqual(
        (await store.list({ offset: 0, limit: 10 })).map((t) => [t.threadId, t.running]),
        [
          ['c', false],
          ['a', false],
          ['b', false],
          ['d', false],
        ],
      );
    });

    test('list: search is a case-insensitive substring of the id, its % _ and \\ taken literally', async () => {
      for (const id of ['Q%r', 'qZr', 'q_R', 'q\\r']) await seed(id, []);
      const found = async (search: string) => (await store.list({ search, offset: 0, limit: 10 })).map((t) => t.threadId).sort();
      assert.deepEqual(await found('%'), ['Q%r']);
      assert.deepEqual(await found('q%R'), ['Q%r']);
      assert.deepEqual(await found('_'), ['q_R']);
      assert.deepEqual(await found('q_r'), ['q_R']);
      assert.deepEqual(await found('\\'), ['q\\r']);
      assert.deepEqual(await found('Q'), ['Q%r', 'qZr', 'q\\r', 'q_R'].sort());
      assert.deepEqual(await found('zr'), ['qZr']);
      assert.deepEqual(await found('x'), []);
      // Longer than any thread id: nothing can contain it.
      assert.deepEqual(await found('q'.repeat(10_000)), []);
      assert.ok((await found('')).length >= 4);
    });

    test('rewrite: a message deleted from the middle is gone, the rest follow it down; the next run appends', async () => {
      await seed('t-cut', ['m0', 'm1', 'm2', 'm3', 'm4']);
      const held = await store.acquire('t-cut', 'edit');
      assert.equal(held?.messageCount, 5);
      const kept = held!.checkpoint.state.messages.filter((m) => m.message_id !== 'm2');
      await store.commit('t-cut', 'edit', { checkpoint: { state: { messages: kept }, pending: [] }, status: 'completed', from: 2, rewrite: true });
      assert.deepEqual(await idsOf('t-cut'), ['m0', 'm1', 'm3', 'm4']);
      const page = await store.page('t-cut', 0, 10);
      assert.equal(page?.messageCount, 4);
      assert.deepEqual(
        page?.messages.map((m) => m.message_id),
        ['m0', 'm1', 'm3', 'm4'],
      );
      assert.equal((await store.list({ search: 't-cut', offset: 0, limit: 10 }))[0]?.messageCount, 4);

      // The next run reads what the rewrite left (SQLite: from its cache) and appends after it.
      const next = await store.acquire('t-cut', 'run');
      assert.equal(next?.messageCount, 4);
      assert.deepEqual(
        next?.checkpoint.state.messages.map((m) => m.message_id),
        ['m0', 'm1', 'm3', 'm4'],
      );
      await store.commit('t-cut', 'run', { checkpoint: { state: { messages: [...next!.checkpoint.state.messages, message('m5')] }, pending: [] }, status: 'completed', from: 4 });
      assert.deepEqual(await idsOf('t-cut'), ['m0', 'm1', 'm3', 'm4', 'm5']);
    });

    test('rewrite: to more messages than were stored, and with the state values and pending calls it carries', async () => {
      await seed('t-put', ['p0', 'p1']);
      assert.ok(await store.acquire('t-put', 'edit'));
      const call = { id: 'call_1', name: 'lookup', args: {}, node: 'TOOL' };
      await store.commit('t-put', 'edit', {
        checkpoint: { state: { messages: messages('p0', 'n1', 'n2', 'n3'), note: 'put' }, interruptedAt: 'TOOL', pending: [call] },
        status: 'waiting',
        from: 1,
        rewrite: true,
      });
      const record = await store.load('t-put');
      assert.deepEqual(record?.checkpoint, { state: { note: 'put', messages: messages('p0', 'n1', 'n2', 'n3') }, interruptedAt: 'TOOL', pending: [call] });
      assert.equal(record?.status, 'waiting');
      assert.equal(record?.messageCount, 4);
    });

    test('rewrite: from 0 to no messages clears the thread, which stays listed; the next run starts from 0', async () => {
      await seed('t-clear', ['c0', 'c1', 'c2']);
      assert.ok(await store.acquire('t-clear', 'edit'));
      await store.commit('t-clear', 'edit', { checkpoint: { state: { messages: [] }, pending: [] }, status: 'completed', from: 0, rewrite: true });
      const record = await store.load('t-clear');
      assert.equal(record?.messageCount, 0);
      assert.deepEqual(record?.checkpoint.state.messages, []);
      assert.deepEqual(
        (await store.list({ search: 't-clear', offset: 0, limit: 10 })).map((t) => [t.threadId, t.messageCount]),
        [['t-clear', 0]],
      );
      const next = await store.acquire('t-clear', 'run');
      assert.equal(next?.messageCount, 0);
      await store.commit('t-clear', 'run', { checkpoint: { state: { messages: messages('z0') }, pending: [] }, status: 'completed', from: 0 });
      assert.deepEqual(await idsOf('t-clear'), ['z0']);
    });

    test('rewrite: from beyond the stored messages is refused, storing nothing and releasing the lock', async () => {
      await seed('t-gap', ['g0']);
      assert.ok(await store.acquire('t-gap', 'edit'));
      await assert.rejects(
        store.commit('t-gap', 'edit', { checkpoint: { state: { messages: messages('g0', 'x', 'y', 'z') }, pending: [] }, status: 'completed', from: 3, rewrite: true }),
        (error: unknown) => error instanceof RangeError && error.message.includes("thread 't-gap' from index 3: it has 1 stored message;"),
      );
      assert.deepEqual(await idsOf('t-gap'), ['g0']);
      assert.equal((await store.load('t-gap'))?.running, false);

      // An unseen thread has nothing stored: only a rewrite from 0 is its first commit.
      assert.ok(await store.acquire('t-gap-unseen', 'edit', { unseen: true }));
      await assert.rejects(
        store.commit('t-gap-unseen', 'edit', { checkpoint: { state: { messages: messages('u0', 'u1') }, pending: [] }, status: 'completed', from: 1, rewrite: true }),
        (error: unknown) => error instanceof RangeError,
      );
      assert.equal(await store.load('t-gap-unseen'), undefined);
    });

    test('rewrite by a run that does not hold the lock is refused with LockLostError and stores nothing', async () => {
      await seed('t-owner', ['o0', 'o1']);
      assert.ok(await store.acquire('t-owner', 'edit'));
      await assert.rejects(
        store.commit('t-owner', 'someone-else', { checkpoint: { state: { messages: [] }, pending: [] }, status: 'completed', from: 0, rewrite: true }),
        (error: unknown) => error instanceof LockLostError,
      );
      assert.deepEqual(await idsOf('t-owner'), ['o0', 'o1']);
      await store.release('t-owner', 'edit');
    });

    test('a commit without rewrite still appends, and one from below the stored count is refused, changing nothing', async () => {
      await seed('t-plain', ['q0', 'q1']);
      assert.ok(await store.acquire('t-plain', 'run'));
      await assert.rejects(
        store.commit('t-plain', 'run', { checkpoint: { state: { messages: messages('q0', 'other') }, pending: [] }, status: 'completed', from: 1 }),
        (error: unknown) => (store.kind === 'postgres' ? error instanceof LockLostError : /UNIQUE constraint failed/.test(String(error))),
      );
      assert.deepEqual(await idsOf('t-plain'), ['q0', 'q1']);
      await store.release('t-plain', 'run');

      assert.ok(await store.acquire('t-plain', 'run-2'));
      await store.commit('t-plain', 'run-2', { checkpoint: { state: { messages: messages('q0', 'q1', 'q2') }, pending: [] }, status: 'completed', from: 2 });
      assert.deepEqual(await idsOf('t-plain'), ['q0', 'q1', 'q2']);
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), '10xgraph-store-list-'));
let cluster: TestPostgres;
before(async () => {
  cluster = await TestPostgres.start();
});
after(() => {
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

listRewriteSuite('SQLite', async () => {
  const path = join(folder, 'list.sqlite');
  const store = new SqliteThreadStore(path);
  return {
    store,
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

listRewriteSuite('PostgreSQL', async () => {
  await cluster.reset();
  return {
    store: await PostgresThreadStore.open(cluster.url),
    async setUpdatedAt(threadId, iso) {
      await cluster.query('UPDATE tenxgraph_threads SET updated_at = $2 WHERE thread_id = $1', [threadId, iso]);
    },
  };
});

describe('the SQLite cache of recent threads', () => {
  test('keeps the creation time the file has, after a reopen and a rewrite', async () => {
    const path = join(folder, 'cache.sqlite');
    const first = new SqliteThreadStore(path);
    await first.acquire('t-cache', 'run-1');
    await first.commit('t-cache', 'run-1', { checkpoint: { state: { messages: messages('k0', 'k1') }, pending: [] }, status: 'completed', from: 0 });
    const createdAt = (await first.load('t-cache'))!.createdAt;
    await first.close();

    const second = new SqliteThreadStore(path);
    try {
      await second.acquire('t-cache', 'edit');
      await second.commit('t-cache', 'edit', { checkpoint: { state: { messages: messages('k1') }, pending: [] }, status: 'completed', from: 0, rewrite: true });
      const cached = await second.acquire('t-cache', 'run-2');
      assert.equal(cached?.createdAt, createdAt);
      assert.deepEqual(cached?.checkpoint.state.messages, messages('k1'));
      assert.deepEqual(await second.load('t-cache'), cached);
      await second.release('t-cache', 'run-2');
    } finally {
      await second.close();
    }
  });
});
