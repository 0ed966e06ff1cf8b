/**
 * SQLite under faults, as `10xgraph api` users meet them: a second process on the same file
 * (by its name, a symbolic link or a hard link), a `--db` that cannot be a database file (under a
 * file, a folder), a database another program holds, a full disk, a schema from a newer version, a `--db` that
 * is a URL of another scheme, and SIGTERM while a run is in flight.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { createApiServer, SCHEMA_VERSION, SqliteThreadStore } from '../../runtime/src/api/index';
import { ApiProcess } from '../hardening/netSupport/apiProcess';
import { poll } from '../support/poll';
import { CLI, runCli } from '../support/run';
import { buildTestGraph, getJson, joinLastText, postJson, findRemoteCalls, resultsFor, ROOT, userText } from './serverHelpers';
import type { Worker } from 'node:worker_threads';

const AGENT = resolve(__dirname, 'storeAgent', '10xgraph.json');
const quiet = { info() {}, warn() {}, error() {} };
const folder = mkdtempSync(join(tmpdir(), '10xgraph-sqlite-faults-'));
after(() => rmSync(folder, { recursive: true, force: true }));

function text(message: any): string {
  return message.content
    .filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}

describe('one process per SQLite file', () => {
  test('a second api on the same file is refused with exit 2 and a message; the first keeps its threads; a killed first does not block the next', async () => {
    const db = join(folder, 'shared.sqlite');
    const first = await new ApiProcess({ config: AGENT, db }).start();
    try {
      const asked = await postJson(`${first.url}/v1/graph/invoke`, { messages: [userText('[t:one]')], config: { thread_id: 'one' } });
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.equal(calls.length, 1);
      const second = await runCli(['api', '--config', AGENT, '--port', '0', '--db', db], { env: { TENXGRAPH_TOKEN: '' } });
      assert.equal(second.code, 2);
      assert.equal(second.stderr, `10xgraph api: The thread database ${db} is in use by another 10xgraph api process; stop that process, or give this one another --db.\n`);
      assert.doesNotMatch(second.stdout, /Listening/);
      const answered = await postJson(`${first.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'v1')], config: { thread_id: 'one' } });
      assert.equal(answered.status, 200);
      assert.equal(text(answered.body.data.messages.at(-1)), 'answer one: v1');

      // The kernel drops the lock with the process, however it ends.
      await first.kill();
      const third = await new ApiProcess({ config: AGENT, db }).start();
      try {
        const thread = await getJson(`${third.url}/v1/threads/one`);
        assert.equal(thread.body.data.thread_data.thread.metadata.status, 'completed');
      } finally {
        await third.stop();
      }
    } finally {
      await first.stop();
    }
  });
});

describe('one process per SQLite file, whatever name it is given', () => {
  // Two processes on one file through two names: each would answer the same pending call once.
  for (const kind of ['symbolic link', 'hard link'] as const) {
    test(`a second api on the same file through a ${kind} is refused with exit 2 and the same message`, async () => {
      const own = mkdtempSync(join(folder, 'alias-'));
      const db = join(own, 'threads.sqlite');
      const first = await new ApiProcess({ config: AGENT, db }).start();
      try {
        const asked = await postJson(`${first.url}/v1/graph/invoke`, { messages: [userText('[t:alias]')], config: { thread_id: 'alias' } });
        const calls = findRemoteCalls(asked.body.data.messages);
        assert.equal(calls.length, 1);
        const alias = join(own, 'alias.sqlite');
        if (kind === 'symbolic link') symlinkSync(db, alias);
        else linkSync(db, alias);
        const second = await runCli(['api', '--config', AGENT, '--port', '0', '--db', alias], { env: { TENXGRAPH_TOKEN: '' }, timeoutMs: 20_000 });
        assert.equal(second.code, 2, second.stdout);
        assert.equal(second.stderr, `10xgraph api: The thread database ${alias} is in use by another 10xgraph api process; stop that process, or give this one another --db.\n`);
        assert.doesNotMatch(second.stdout, /Listening/);
        const answered = await postJson(`${first.url}/v1/graph/invoke`, {
          messages: [resultsFor(calls, () => 'v1')],
          config: { thread_id: 'alias' },
        });
        assert.equal(answered.status, 200);
      } finally {
        await first.stop();
      }
      // The first gone, the file may be opened through the other name.
      const third = await new ApiProcess({ config: AGENT, db: join(own, 'alias.sqlite') }).start();
      try {
        const thread = await getJson(`${third.url}/v1/threads/alias`);
        assert.equal(thread.body.data.thread_data.thread.metadata.status, 'completed');
      } finally {
        await third.stop();
      }
    });
  }
});

/** Runs `command` as uid and gid 65534 (the caller is root), with no token set. */
async function asNobody(command: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const result = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...command], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, TENXGRAPH_TOKEN: '' },
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a --db that cannot be a database file', () => {
  async function refusal(db: string): Promise<string> {
    const result = await runCli(['api', '--config', AGENT, '--port', '0', '--db', db], { env: { TENXGRAPH_TOKEN: '' } });
    assert.equal(result.code, 2, result.stdout);
    assert.doesNotMatch(result.stdout, /Listening/);
    assert.doesNotMatch(result.stderr, /\b(EEXIST|ENOTDIR|EISDIR|SQLITE_CANTOPEN)\b/, 'no raw error code');
    return result.stderr;
  }

  test('a path under a regular file names the file that is in the way', async () => {
    const own = mkdtempSync(join(folder, 'under-file-'));
    const file = join(own, 'some-regular-file');
    writeFileSync(file, 'not a folder');
    for (const db of [join(file, 'threads.db'), join(file, 'deeper', 'threads.db')]) {
      assert.equal(
        await refusal(db),
        `10xgraph api: The thread database ${db} cannot be created: ${file} is a file, not a folder; move that file away or pass another --db (a SQLite file, :memory: or a postgres:// URL).\n`,
      );
    }
    assert.deepEqual(readdirSync(own), ['some-regular-file'], 'nothing is made');
  });

  test('a folder, or a path ending with a slash, is not taken for the database', async () => {
    const own = mkdtempSync(join(folder, 'db-folder-'));
    const dir = join(own, 'threads');
    mkdirSync(dir);
    assert.equal(
      await refusal(dir),
      `10xgraph api: The thread database ${dir} is a folder, not a file; pass --db a file in it (such as ${join(dir, 'threads.sqlite')}), :memory: or a postgres:// URL.\n`,
    );
    assert.equal(
      await refusal(`${dir}/`),
      `10xgraph api: The thread database ${dir}/ is a folder, not a file; pass --db a file in it (such as ${join(dir, 'threads.sqlite')}), :memory: or a postgres:// URL.\n`,
    );
    const file = join(own, 'file');
    writeFileSync(file, '');
    assert.equal(
      await refusal(`${file}/`),
      `10xgraph api: The thread database ${file}/ ends with a slash, so it names a folder, but ${file} is a file; pass --db a file path, :memory: or a postgres:// URL.\n`,
    );
    assert.deepEqual(readdirSync(own).sort(), ['file', 'threads'], 'no lock file is left beside them');
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a folder this user may not write, or a file it may not write, is refused with a sentence', async () => {
    // As root every permission is granted: the server then runs as the unprivileged uid 65534.
    const root = process.getuid?.() === 0;
    const own = mkdtempSync(join(tmpdir(), '10xgraph-db-denied-'));
    try {
      const closed = join(own, 'closed');
      mkdirSync(closed);
      writeFileSync(join(closed, 'read-only.sqlite'), '');
      chmodSync(join(closed, 'read-only.sqlite'), 0o444);
      chmodSync(closed, 0o555);
      chmodSync(own, 0o755);
      const run = (db: string) =>
        root
          ? asNobody([process.execPath, CLI, 'api', '--config', AGENT, '--port', '0', '--db', db])
          : runCli(['api', '--config', AGENT, '--port', '0', '--db', db], { env: { TENXGRAPH_TOKEN: '' } });
      const cases: Array<[string, string]> = [
        [join(closed, 'sub', 'threads.sqlite'), `cannot be created: its folder ${join(closed, 'sub')} cannot be made (permission denied); pass another --db`],
        [
          join(closed, 'threads.sqlite'),
          'cannot be opened: permission denied (it, or its folder, may not be read and written by this user); fix its permissions or pass another --db',
        ],
        [
          join(closed, 'read-only.sqlite'),
          'cannot be opened: permission denied (it, or its folder, may not be read and written by this user); fix its permissions or pass another --db',
        ],
      ];
      for (const [db, why] of cases) {
        const result = await run(db);
        assert.equal(result.code, 2, result.stdout + result.stderr);
        assert.equal(result.stderr, `10xgraph api: The thread database ${db} ${why} (a SQLite file, :memory: or a postgres:// URL).\n`);
      }
    } finally {
      chmodSync(join(own, 'closed'), 0o755);
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('a symbolic link that loops names the loop', async () => {
    const own = mkdtempSync(join(folder, 'db-loop-'));
    symlinkSync(join(own, 'b'), join(own, 'a'));
    symlinkSync(join(own, 'a'), join(own, 'b'));
    assert.equal(
      await refusal(join(own, 'a')),
      `10xgraph api: The thread database ${join(own, 'a')} cannot be opened: its symbolic links loop; fix the link or pass another --db (a SQLite file, :memory: or a postgres:// URL).\n`,
    );
  });
});

describe('a database another program holds', () => {
  test('a run answers 503 TRANSIENT_STORAGE_ERROR within the bound, other requests are not held up, and it succeeds once the database is free', async () => {
    const db = join(folder, 'held.sqlite');
    const store = new SqliteThreadStore(db, { busyMs: 300 });
    const api = createApiServer({ graph: buildTestGraph(), db: store, token: '', log: quiet });
    const url = await api.listen(0, '127.0.0.1');
    const other = new Database(db);
    try {
      other.exec('BEGIN IMMEDIATE');
      const pending = postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'held' } });
      // The event loop is free meanwhile: the wait happens between attempts, not inside SQLite.
      const ping = await getJson(`${url}/ping`);
      assert.equal(ping.status, 200);
      const refused = await pending;
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error.code, 'TRANSIENT_STORAGE_ERROR');
      assert.match(
        refused.body.error.message,
        /is held by another program \(a backup or an open transaction\) for longer than 300 ms; try again once it lets go\. The thread is left as it was before the run\./,
      );
      other.exec('ROLLBACK');
      // The failed write left no lock behind: the same thread runs at once.
      const again = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: 'held' } });
      assert.equal(again.status, 200);
      assert.equal(joinLastText(again.body.data.messages), 'No tool needed.');
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await api.close();
      await store.close();
    }
  });
});

/** Mounts a small tmpfs at `dir` (root only); false where mounting is not allowed. */
function mountTmpfs(dir: string, size: string): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
}

/** Writes zeros into `file` until the file system is full. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe('a full disk', () => {
  test('the run that cannot be stored answers 503 and leaves the thread as it was; once space is freed the same thread goes on, never 409', async () => {
    const disk = join(folder, 'disk');
    const mounted = mountTmpfs(disk, '4m');
    // Without the right to mount, the failed write comes from another program holding the file: the same code path.
    const db = join(disk, 'threads.sqlite');
    const store = new SqliteThreadStore(db, { busyMs: 200 });
    const api = createApiServer({ graph: buildTestGraph(), db: store, token: '', log: quiet });
    const url = await api.listen(0, '127.0.0.1');
    const other = mounted ? undefined : new Database(db);
    try {
      const asked = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('search for disks')], config: { thread_id: 'full' } });
      const calls = findRemoteCalls(asked.body.data.messages);
      assert.equal(calls.length, 1);
      if (mounted) fillDisk(join(disk, 'filler'));
      else other!.exec('BEGIN IMMEDIATE');
      const big = 'x'.repeat(600_000);
      const failed = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => big)], config: { thread_id: 'full' } });
      assert.equal(failed.status, 503);
      assert.equal(failed.body.error.code, 'TRANSIENT_STORAGE_ERROR');
      if (mounted) assert.match(failed.body.error.message, /cannot be written \(.*(full|FULL).*\); free disk space or fix the file's permissions, then try again/);
      // Nothing of the failed run was kept, and the thread is not wedged.
      const stored = await store.load('full');
      assert.equal(stored?.status, 'waiting');
      // The answer holds the request's message and the run's: all the thread holds.
      assert.equal(stored?.messageCount, asked.body.data.messages.length);
      if (mounted) rmSync(join(disk, 'filler'));
      else other!.exec('ROLLBACK');
      const retried = await postJson(`${url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'found')], config: { thread_id: 'full' } });
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      assert.deepEqual(findRemoteCalls(retried.body.data.messages), []);
      assert.match(joinLastText(retried.body.data.messages), /search_local_database: found$/);
    } finally {
      other?.close();
      await api.close();
      await store.close();
      if (mounted) execFileSync('umount', [disk]);
    }
  });
});

describe('start-up refusals', () => {
  test('a database of a newer schema: exit 2 with the versions', async () => {
    const db = join(folder, 'future.sqlite');
    const raw = new Database(db);
    raw.pragma('user_version = 7');
    raw.close();
    const result = await runCli(['api', '--config', AGENT, '--port', '0', '--db', db], { env: { TENXGRAPH_TOKEN: '' } });
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      `10xgraph api: The thread database ${db} has schema version 7, newer than this 10xgraph knows (${SCHEMA_VERSION}): it was written by a newer 10xgraph; upgrade 10xgraph or use another database.\n`,
    );
  });

  test('a --db or TENXGRAPH_DATABASE_URL of another scheme is refused with exit 2, and no file or folder is made', async () => {
    const cwd = mkdtempSync(join(tmpdir(), '10xgraph-db-scheme-'));
    try {
      const flag = await runCli(['api', '--config', AGENT, '--port', '0', '--db', 'mysql://root:pw@localhost/threads'], { cwd, env: { TENXGRAPH_TOKEN: '' } });
      assert.equal(flag.code, 2);
      assert.match(
        flag.stderr,
        /^10xgraph api: --db: The thread database 'mysql:\/\/root@localhost\/threads' is a mysql:\/\/ URL; 10xgraph keeps threads in PostgreSQL \(postgres:\/\/user:password@host:port\/db\) or in a SQLite file \(a path\)\.\n/,
      );
      assert.doesNotMatch(flag.stderr, /pw@/);
      const env = await runCli(['api', '--config', AGENT, '--port', '0'], { cwd, env: { TENXGRAPH_TOKEN: '', TENXGRAPH_DATABASE_URL: 'redis://cache:6379/0' } });
      assert.equal(env.code, 2);
      assert.match(env.stderr, /is a redis:\/\/ URL/);
      assert.equal(existsSync(join(cwd, 'mysql:')), false);
      assert.equal(existsSync(join(cwd, 'redis:')), false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('SIGTERM', () => {
  test('stops accepting, lets the run in flight finish and answer, stores it, and exits 0', async () => {
    const db = join(folder, 'sigterm.sqlite');
    const release = join(folder, 'sigterm-release');
    const server = await new ApiProcess({ config: AGENT, db }).start();
    try {
      const inFlight = postJson(`${server.url}/v1/graph/invoke`, { messages: [userText(`[t:term] [hold:${release}]`)], config: { thread_id: 'term' } });
      await server.waitForOutput(/HOLD term/);
      process.kill(server.pid!, 'SIGTERM');
      await server.waitForOutput(/Stopping \(SIGTERM\)/);
      // No new connection is accepted while the run drains.
      await assert.rejects(fetch(`${server.url}/ping`));
      writeFileSync(release, '');
      const answer = await inFlight;
      assert.equal(answer.status, 200);
      assert.equal(findRemoteCalls(answer.body.data.messages).length, 1);
      await poll('the server to exit', () => !server.alive, 15_000);
      assert.deepEqual(server.exit, { code: 0, signal: null });
      const raw = new Database(db, { readonly: true });
      try {
        assert.equal(raw.prepare("SELECT status FROM threads WHERE thread_id = 'term'").pluck().get(), 'waiting');
      } finally {
        raw.close();
      }
    } finally {
      await server.stop();
    }
  });
});

describe('the checkpoint worker', () => {
  test('runs from its own built file (runtime/dist/sqliteCheckpoint.js) and answers a checkpoint', async () => {
    assert.ok(existsSync(join(ROOT, 'runtime', 'dist', 'sqliteCheckpoint.js')), 'node esbuild.mjs builds the worker');
    const store = new SqliteThreadStore(join(folder, 'worker.sqlite'));
    try {
      const worker = (store as unknown as { checkpointer?: { worker?: Worker } }).checkpointer?.worker;
      assert.ok(worker, 'the store started its checkpoint worker, not the fallback on the main connection');
      const answer = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage('checkpoint');
      });
      assert.equal(answer, 'done');
    } finally {
      await store.close();
    }
  });
});
