/**
 * Threads in SQLite: the embedded default, one `10xgraph api` process per file. The process
 * holds an exclusive SQLite lock on a companion file (`FILE.lock`) for its whole life; the
 * operating system drops that lock when the process ends, however it ends, so a crash never
 * leaves the file claimed and a second process is refused with a message. The file is known by
 * what it is, not by the name it is given: `FILE` is its real path (symbolic links resolved),
 * and a file with several names (hard links) is also refused while a process holds it through
 * another name in the same folder. Since no other process can run threads from the file, the
 * run lock lives in this process's memory: it cannot be left behind by a failed write.
 *
 * Commits do not wait for checkpoints (which flush the write-ahead log into the file and fsync
 * it): a worker thread with its own connection checkpoints in the background twice a second
 * when there were commits, so a run's commit never stalls on a disk flush.
 *
 * Another program may still hold the database (a backup, the `sqlite3` shell in a transaction).
 * Calls then retry without blocking the event loop, for at most `busyMs`, and fail with
 * `StoreUnavailableError` (the server answers 503).
 */
import type Database from 'better-sqlite3';
import { loadSqlite } from '../lazy';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import {
  buildSearchPattern,
  buildSummary,
  LockLostError,
  newPage,
  newRecord,
  pageOf,
  recordOf,
  rewriteBeyondMessage,
  rowValues,
  StoreOpenError,
  StoreUnavailableError,
  type AcquireOptions,
  type DeleteOptions,
  type DeleteOutcome,
  type RunCommit,
  type ThreadListOptions,
  type ThreadPage,
  type ThreadRecord,
  type ThreadRow,
  type ThreadStore,
  type ThreadSummary,
  type ThreadSummaryRow,
} from './contract';
import { newerSchemaMessage, SCHEMA_VERSION, SQLITE_MIGRATIONS } from './migrations';
import type { CheckpointMessage, CheckpointWorkerData } from './checkpointWorker';

/** Options of a SQLite store. */
export interface SqliteStoreOptions {
  /** How long a call waits for a database held by another program before it fails (default 1000 ms). */
  busyMs?: number;
}

/** How many recently run threads the store keeps parsed in memory. */
const RECENT_THREADS = 1000;

/** The default bound on waiting for a database another program holds. */
export const DEFAULT_SQLITE_BUSY_MS = 1000;

/** The most messages one INSERT statement carries; a run that adds more takes several. */
const MESSAGES_PER_INSERT = 8;

/** A thread's run lock, held in memory. */
interface RunLock {
  owner: string;
  /** The thread's user, which the commit stores when it writes the thread's row first. */
  userId?: string;
}

/** The SQLite thread store. */
export class SqliteThreadStore implements ThreadStore {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  /** Locks live in memory and die with the process: there is no lease to renew. */
  readonly leaseMs = Number.POSITIVE_INFINITY;
  private readonly busyMs: number;
  private readonly db: Database.Database;
  private readonly holder?: Database.Database;
  private readonly locks = new Map<string, RunLock>();
  private readonly checkpointer?: Checkpointer;
  private readonly statements: {
    thread: Database.Statement<[string]>;
    userOf: Database.Statement<[string]>;
    messages: Database.Statement<[string]>;
    messagesFrom: Database.Statement<[string, number, number]>;
    upsert: Database.Statement<[string, string, string | null, string, string, number, string | null, string | null, string, string]>;
    remove: Database.Statement<[string]>;
    removeOwned: Database.Statement<[string, string | null]>;
    removeMessages: Database.Statement<[string]>;
    removeMessagesFrom: Database.Statement<[string, number]>;
    messageCount: Database.Statement<[string]>;
    list: Database.Statement<[string, number, number]>;
    listOfUser: Database.Statement<[string, string, number, number]>;
  };
  /** Stores a commit, the thread's user with it when it writes the row first; returns the row's `created_at` and `user_id`. */
  private readonly commitTransaction: (threadId: string, outcome: RunCommit, now: string, userId: string | null) => Pick<ThreadRow, 'created_at' | 'user_id'>;
  /** `INSERT INTO messages` of 1 to `MESSAGES_PER_INSERT` rows, by row count, prepared when first needed. */
  private readonly appends: Array<Database.Statement<unknown[]>> = [];
  /**
   * The threads last run, as their last commit left them: no other process writes the file, so
   * the next run of a thread (a resume, most often) starts without reading and parsing it again.
   */
  private readonly recent = new Map<string, ThreadRecord>();

  /**
   * Opens (or creates) the store at `path` (`:memory:` for a throw-away one) and brings its schema
   * up to date. Throws `StoreOpenError` when another process holds the file, when the schema is
   * newer than this code, or when the file cannot be opened.
   */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.location = path;
    this.busyMs = options.busyMs ?? DEFAULT_SQLITE_BUSY_MS;
    const memory = path === ':memory:';
    // Before any folder or file is made: without better-sqlite3 (an optional peer) nothing is written.
    loadSqlite();
    // The file itself, by its real path: every name of it shares one lock, one WAL and one -shm.
    const file = memory ? path : locateDatabase(path);
    if (!memory) this.holder = claimFile(path, file);
    try {
      this.db = new (loadSqlite())(file);
      // Waits happen in `retry`, off the event loop; SQLite itself never sleeps.
      this.db.pragma('busy_timeout = 0');
      if (!memory) {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = NORMAL');
      }
      migrate(this.db, path);
      if (!memory) {
        this.db.pragma('wal_autocheckpoint = 0');
        this.checkpointer = new Checkpointer(file, () => this.db.pragma('wal_checkpoint(PASSIVE)'));
      }
    } catch (error) {
      this.holder?.close();
      if (error instanceof StoreOpenError) throw error;
      throw new StoreOpenError(`Cannot open the thread database ${path}: ${describeSqliteError(error)}; pass another --db (a SQLite file, :memory: or a postgres:// URL).`, {
        cause: error,
      });
    }
    this.statements = {
      thread: this.db.prepare('SELECT * FROM threads WHERE thread_id = ?'),
      userOf: this.db.prepare('SELECT status, user_id FROM threads WHERE thread_id = ?'),
      messages: this.db.prepare('SELECT body FROM messages WHERE thread_id = ? ORDER BY seq').pluck(),
      messagesFrom: this.db.prepare('SELECT body FROM messages WHERE thread_id = ? AND seq >= ? ORDER BY seq LIMIT ?').pluck(),
      // Returns the row's first `created_at` and its user, which the cache of recent threads keeps. The
      // user is written with the row; a row of status 'new' (only an older version wrote one) was never
      // committed, so its first commit writes the user too.
      upsert: this.db.prepare(
        `INSERT INTO threads (thread_id, status, interrupted_at, pending_json, values_json, message_count, last_error, user_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (thread_id) DO UPDATE SET status = excluded.status, interrupted_at = excluded.interrupted_at, pending_json = excluded.pending_json,
           values_json = excluded.values_json, message_count = excluded.message_count, last_error = excluded.last_error, updated_at = excluded.updated_at,
           user_id = CASE WHEN threads.status = 'new' THEN excluded.user_id ELSE threads.user_id END
         RETURNING created_at, user_id`,
      ),
      remove: this.db.prepare('DELETE FROM threads WHERE thread_id = ?'),
      removeOwned: this.db.prepare('DELETE FROM threads WHERE thread_id = ? AND user_id IS ?'),
      removeMessages: this.db.prepare('DELETE FROM messages WHERE thread_id = ?'),
      removeMessagesFrom: this.db.prepare('DELETE FROM messages WHERE thread_id = ? AND seq >= ?'),
      messageCount: this.db.prepare('SELECT message_count FROM threads WHERE thread_id = ?').pluck(),
      // A thread acquired and never committed has no row (or one of status 'new', had an older version written one).
      list: this.db.prepare(
        `SELECT thread_id, status, message_count, user_id, created_at, updated_at FROM threads
         WHERE status <> 'new' AND thread_id LIKE ? ESCAPE '\\'
         ORDER BY updated_at DESC, thread_id LIMIT ? OFFSET ?`,
      ),
      // One user's threads, read in order from the index threads_user_updated (schema version 4).
      listOfUser: this.db.prepare(
        `SELECT thread_id, status, message_count, user_id, created_at, updated_at FROM threads
         WHERE user_id = ? AND status <> 'new' AND thread_id LIKE ? ESCAPE '\\'
         ORDER BY updated_at DESC, thread_id LIMIT ? OFFSET ?`,
      ),
    };
    this.commitTransaction = this.db.transaction((threadId: string, outcome: RunCommit, now: string, userId: string | null) => {
      const messages = outcome.checkpoint.state.messages;
      if (outcome.rewrite) {
        const stored = Number(this.statements.messageCount.get(threadId) ?? 0);
        if (outcome.from > stored) throw new RangeError(rewriteBeyondMessage(threadId, outcome.from, stored));
        // From `from` on, or from the state's end when it is shorter: rows below both are kept as they are.
        this.statements.removeMessagesFrom.run(threadId, Math.min(outcome.from, messages.length));
      }
      // The run's messages in as few statements as possible: one for the usual handful.
      for (let first = outcome.from; first < messages.length; first += MESSAGES_PER_INSERT) {
        const count = Math.min(MESSAGES_PER_INSERT, messages.length - first);
        const values: unknown[] = [];
        for (let seq = first; seq < first + count; seq++) values.push(threadId, seq, JSON.stringify(messages[seq]));
        this.appendOf(count).run(values);
      }
      const row = rowValues(outcome);
      return this.statements.upsert.get(threadId, outcome.status, row.interruptedAt, row.pending, row.values, row.count, row.error, userId, now, now) as Pick<
        ThreadRow,
        'created_at' | 'user_id'
      >;
    });
  }

  async acquire(threadId: string, owner: string, options: AcquireOptions = {}): Promise<ThreadRecord | undefined> {
    if (this.locks.has(threadId)) return undefined;
    // Until the read finds the thread stored, it is new and the run's user is its user.
    const lock: RunLock = { owner, userId: options.userId };
    this.locks.set(threadId, lock);
    // An id nobody could have named yet has nothing stored: no read.
    if (options.unseen) return { ...newRecord(threadId, options.userId), running: true };
    try {
      const record = { ...(this.recent.get(threadId) ?? (await this.load(threadId)) ?? newRecord(threadId, options.userId)), running: true };
      if (record.status === 'new') {
        // Never committed (a row of status 'new' only an older version wrote): this run creates it.
        if (options.userId === undefined) delete record.userId;
        else record.userId = options.userId;
      }
      lock.userId = record.userId;
      return record;
    } catch (error) {
      this.locks.delete(threadId);
      throw error;
    }
  }

  async renew(threadId: string, owner: string): Promise<boolean> {
    return this.locks.get(threadId)?.owner === owner;
  }

  async commit(threadId: string, owner: string, outcome: RunCommit): Promise<void> {
    const lock = this.locks.get(threadId);
    if (lock?.owner !== owner) throw new LockLostError(threadId);
    this.recent.delete(threadId);
    try {
      const now = new Date().toISOString();
      const written = await this.retry(() => this.commitTransaction(threadId, outcome, now, lock.userId ?? null));
      this.checkpointer?.written();
      this.remember(threadId, outcome, written, now);
    } finally {
      this.releaseLock(threadId, owner);
    }
  }

  async release(threadId: string, owner: string): Promise<void> {
    this.releaseLock(threadId, owner);
  }

  async load(threadId: string): Promise<ThreadRecord | undefined> {
    // No read transaction: this process is the only writer, and it writes synchronously.
    return this.retry(() => {
      const row = this.statements.thread.get(threadId) as ThreadRow | undefined;
      if (row) return recordOf(threadId, row, this.locks.has(threadId), this.statements.messages.all(threadId) as string[]);
      // A new thread is written by its first run's commit; until then it exists while it runs.
      const lock = this.locks.get(threadId);
      return lock ? { ...newRecord(threadId, lock.userId), running: true } : undefined;
    });
  }

  async userOf(threadId: string): Promise<string | undefined> {
    return this.retry(() => {
      const row = this.statements.userOf.get(threadId) as { status: string; user_id: string | null } | undefined;
      // A row of status 'new' was never committed (only an older version wrote one): nobody's, as acquire takes it.
      if (row && row.status !== 'new') return row.user_id ?? undefined;
      return this.locks.get(threadId)?.userId;
    });
  }

  async page(threadId: string, offset: number, limit: number): Promise<ThreadPage | undefined> {
    return this.retry(() => {
      const row = this.statements.thread.get(threadId) as ThreadRow | undefined;
      if (row) return pageOf(threadId, row, this.locks.has(threadId), offset, this.statements.messagesFrom.all(threadId, offset, limit) as string[]);
      const lock = this.locks.get(threadId);
      return lock ? newPage(threadId, offset, lock.userId) : undefined;
    });
  }

  async list(options: ThreadListOptions): Promise<ThreadSummary[]> {
    const pattern = buildSearchPattern(options.search);
    if (pattern === undefined) return [];
    const { userId, limit, offset } = options;
    return this.retry(() => {
      const rows = userId === undefined ? this.statements.list.all(pattern, limit, offset) : this.statements.listOfUser.all(userId, pattern, limit, offset);
      return (rows as ThreadSummaryRow[]).map((row) => buildSummary(row, this.locks.has(row.thread_id)));
    });
  }

  async delete(threadId: string, options: DeleteOptions = {}): Promise<DeleteOutcome> {
    if (this.locks.has(threadId)) return 'busy';
    this.recent.delete(threadId);
    return this.retry(() =>
      this.db.transaction(() => {
        const removed = options.userId === undefined ? this.statements.remove.run(threadId) : this.statements.removeOwned.run(threadId, options.userId);
        if (removed.changes === 0) return 'missing';
        this.statements.removeMessages.run(threadId);
        return 'deleted';
      })(),
    );
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    // The last checkpoint leaves the file complete without its write-ahead log.
    if (this.db.open && this.checkpointer) this.db.pragma('wal_checkpoint(TRUNCATE)');
    if (this.db.open) this.db.close();
    if (this.holder?.open) this.holder.close();
  }

  /** The statement inserting `count` messages. */
  private appendOf(count: number): Database.Statement<unknown[]> {
    let statement = this.appends[count];
    if (!statement) {
      statement = this.db.prepare(`INSERT INTO messages (thread_id, seq, body) VALUES ${Array.from({ length: count }, () => '(?, ?, ?)').join(', ')}`);
      this.appends[count] = statement;
    }
    return statement;
  }

  /** Keeps a committed thread in `recent`, the oldest dropped past `RECENT_THREADS`. */
  private remember(threadId: string, outcome: RunCommit, written: Pick<ThreadRow, 'created_at' | 'user_id'>, updatedAt: string): void {
    const waiting = outcome.status === 'waiting';
    this.recent.set(threadId, {
      threadId,
      status: outcome.status,
      running: false,
      checkpoint: {
        state: outcome.checkpoint.state,
        ...(waiting && outcome.checkpoint.interruptedAt !== undefined ? { interruptedAt: outcome.checkpoint.interruptedAt } : {}),
        pending: waiting ? outcome.checkpoint.pending : [],
      },
      messageCount: outcome.checkpoint.state.messages.length,
      ...(outcome.error ? { lastError: outcome.error } : {}),
      ...(written.user_id !== null ? { userId: written.user_id } : {}),
      createdAt: written.created_at,
      updatedAt,
    });
    if (this.recent.size > RECENT_THREADS) this.recent.delete(this.recent.keys().next().value as string);
  }

  private releaseLock(threadId: string, owner: string): void {
    if (this.locks.get(threadId)?.owner === owner) this.locks.delete(threadId);
  }

  /** Runs `step`, retrying while another program holds the database, for at most `busyMs`. */
  private async retry<T>(step: () => T): Promise<T> {
    const deadline = Date.now() + this.busyMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        return step();
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
          if (Date.now() + wait > deadline) {
            throw new StoreUnavailableError(
              `The thread database ${this.location} is held by another program (a backup or an open transaction) for longer than ${this.busyMs} ms; try again once it lets go.`,
              { cause: error },
            );
          }
          await sleep(wait);
          continue;
        }
        if (code.startsWith('SQLITE_FULL') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) {
          throw new StoreUnavailableError(
            `The thread database ${this.location} cannot be written (${describeSqliteError(error)}); free disk space or fix the file's permissions, then try again.`,
            { cause: error },
          );
        }
        throw error;
      }
    }
  }
}

/** How often the background checkpoint runs when there were commits. */
const CHECKPOINT_EVERY_MS = 500;

/**
 * The checkpoint worker's file (./checkpointWorker.ts, built by esbuild.mjs as
 * runtime/dist/sqliteCheckpoint.js): beside the bundle that holds this code, or, when the store runs
 * from the repository's sources (tests, benchmarks: a worker thread does not inherit their
 * TypeScript loader), the built one in runtime/dist. Only the sources look there: a bundle of
 * someone else's app never starts a file found three folders above it. Undefined when there is
 * none: checkpoints then run on the main connection.
 */
function checkpointWorkerFile(): string | undefined {
  const file = __filename.endsWith('.ts') ? join(__dirname, '..', '..', '..', 'dist', 'sqliteCheckpoint.js') : join(__dirname, 'sqliteCheckpoint.js');
  return existsSync(file) ? file : undefined;
}

/**
 * Runs checkpoints off the event loop: in a worker thread when one can start, else (as a
 * fallback) on the main connection, on a timer either way, never inside a commit.
 */
class Checkpointer {
  private dirty = false;
  private busy = false;
  private worker?: Worker;
  private readonly timer: NodeJS.Timeout;

  constructor(path: string, inline: () => void) {
    const file = checkpointWorkerFile();
    try {
      const data: CheckpointWorkerData = { path };
      const worker = file === undefined ? undefined : new Worker(file, { workerData: data });
      worker?.unref();
      worker?.on('message', () => (this.busy = false));
      worker?.on('error', () => {
        this.worker = undefined;
        this.busy = false;
      });
      this.worker = worker;
    } catch {
      this.worker = undefined;
    }
    this.timer = setInterval(() => {
      if (!this.dirty || this.busy) return;
      this.dirty = false;
      if (this.worker) {
        this.busy = true;
        this.worker.postMessage('checkpoint' satisfies CheckpointMessage);
      } else {
        try {
          inline();
        } catch {
          // Busy now: the next round tries again.
        }
      }
    }, CHECKPOINT_EVERY_MS);
    this.timer.unref();
  }

  /** Notes a commit: the next round checkpoints. */
  written(): void {
    this.dirty = true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close' satisfies CheckpointMessage);
    await Promise.race([exited, sleep(2000).then(() => worker.terminate())]);
  }
}

const ANOTHER_DB = 'pass another --db (a SQLite file, :memory: or a postgres:// URL)';

/**
 * Makes the folder of the database `path` and the file itself (an empty file is an empty SQLite
 * database), and returns the file's real path. Every way `path` cannot be a database file gets
 * a sentence that names it: a folder in the way that is a file, a folder given as the database,
 * a link that loops, no permission. Throws `StoreOpenError`.
 */
function locateDatabase(path: string): string {
  const cannot = (what: string, why: string, todo = ANOTHER_DB) => new StoreOpenError(`The thread database ${path} ${what}: ${why}; ${todo}.`);
  if (/[\\/]$/.test(path)) {
    // A trailing slash names a folder, whatever is there.
    const named = path.replace(/[\\/]+$/, '') || path;
    const there = statQuietly(named);
    if (there?.isDirectory()) throw folderGiven(path);
    const why = there ? `, but ${named} is a file` : '';
    throw new StoreOpenError(`The thread database ${path} ends with a slash, so it names a folder${why}; pass --db a file path, :memory: or a postgres:// URL.`);
  }
  const folder = dirname(path);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const blocker = code === 'EEXIST' || code === 'ENOTDIR' ? fileInTheWay(path) : undefined;
    if (blocker !== undefined) throw cannot('cannot be created', `${blocker} is a file, not a folder`, `move that file away or ${ANOTHER_DB}`);
    throw cannot('cannot be created', `its folder ${folder} cannot be made (${describeFsError(error)})`);
  }
  let fd: number | undefined;
  try {
    // Not a FIFO or a device: checked before the open, which would act on them (and after it, on the file opened).
    const before = statQuietly(path);
    if (before?.isDirectory()) throw folderGiven(path);
    if (before && !before.isFile()) throw cannot('cannot be opened', `it is ${describeKind(before)}, not a regular file`);
    // O_CREAT without O_EXCL or O_TRUNC: a file made meanwhile is opened, never emptied.
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NONBLOCK ?? 0), 0o644);
    const opened = fstatSync(fd);
    if (opened.isDirectory()) throw folderGiven(path);
    if (!opened.isFile()) throw cannot('cannot be opened', `it is ${describeKind(opened)}, not a regular file`);
    return realpathSync(path);
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw folderGiven(path);
    if (code === 'ELOOP') throw cannot('cannot be opened', 'its symbolic links loop', `fix the link or ${ANOTHER_DB}`);
    if (code === 'EACCES' || code === 'EPERM')
      throw cannot('cannot be opened', 'permission denied (it, or its folder, may not be read and written by this user)', `fix its permissions or ${ANOTHER_DB}`);
    throw cannot('cannot be opened', describeFsError(error));
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function folderGiven(path: string): StoreOpenError {
  return new StoreOpenError(
    `The thread database ${path} is a folder, not a file; pass --db a file in it (such as ${join(path.replace(/[\\/]+$/, '') || path, 'threads.sqlite')}), :memory: or a postgres:// URL.`,
  );
}

/** The first folder above `path` (from the root down) that exists and is not a folder, written as in `path`. */
function fileInTheWay(path: string): string | undefined {
  const parts = path.split(/[\\/]+/);
  for (let count = 1; count < parts.length; count++) {
    const folder = parts.slice(0, count).join('/');
    // The root of an absolute path ('' before its first slash) is a folder.
    if (folder === '') continue;
    const info = statQuietly(folder);
    if (info === undefined) return undefined;
    if (!info.isDirectory()) return folder;
  }
  return undefined;
}

function statQuietly(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function describeKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** A file system error as a reason people read: its meaning, not its code. */
function describeFsError(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ELOOP':
      return 'its symbolic links loop';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Claims `FILE.lock` for this process, `FILE` being `file`, the real path of the database `path`:
 * an exclusive SQLite lock held until the connection closes (the kernel drops it when the process
 * dies). A file with other names in its folder (hard links) is refused too while the lock of one
 * of those names is held. Throws `StoreOpenError` when another process holds the file.
 */
function claimFile(path: string, file: string): Database.Database {
  const lockPath = `${file}.lock`;
  let holder: Database.Database;
  try {
    holder = new (loadSqlite())(lockPath);
  } catch (error) {
    throw new StoreOpenError(`Cannot create the lock file ${lockPath} of the thread database: ${describeSqliteError(error)}.`, { cause: error });
  }
  const inUse = (cause: unknown) =>
    new StoreOpenError(`The thread database ${path} is in use by another 10xgraph api process; stop that process, or give this one another --db.`, { cause });
  try {
    holder.pragma('busy_timeout = 0');
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL); DELETE FROM holder;');
    holder.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  } catch (error) {
    holder.close();
    if (isBusy(error)) throw inUse(error);
    throw new StoreOpenError(`Cannot lock the thread database ${path} (through ${lockPath}): ${describeSqliteError(error)}.`, { cause: error });
  }
  // Held first, checked second: of two processes starting at once through two names, neither
  // misses the other (both may give up, never both run).
  const other = otherNameHeld(file);
  if (other !== undefined) {
    holder.close();
    throw inUse(other);
  }
  return holder;
}

/**
 * When the database `file` has other names (hard links) in its folder, the lock file of the first
 * of them that another process holds (as the error that says so); undefined when none is held.
 * Names in other folders cannot be found without a search of the whole file system.
 */
function otherNameHeld(file: string): unknown {
  let info: Stats;
  try {
    info = statSync(file);
  } catch {
    return undefined;
  }
  if (info.nlink < 2) return undefined;
  const folder = dirname(file);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return undefined;
  }
  for (const name of names) {
    const other = join(folder, name);
    if (other === file) continue;
    let same: Stats;
    try {
      same = lstatSync(other);
    } catch {
      continue;
    }
    if (!same.isFile() || same.ino !== info.ino || same.dev !== info.dev) continue;
    let probe: Database.Database;
    try {
      probe = new (loadSqlite())(`${other}.lock`, { readonly: true, fileMustExist: true });
    } catch {
      // No lock file: no process ever claimed the file by that name.
      continue;
    }
    try {
      probe.pragma('busy_timeout = 0');
      probe.prepare('SELECT count(*) FROM holder').get();
    } catch (error) {
      if (isBusy(error)) return error;
    } finally {
      probe.close();
    }
  }
  return undefined;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** Brings the schema to `SCHEMA_VERSION` in one transaction; refuses a newer one. */
function migrate(db: Database.Database, path: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new StoreOpenError(newerSchemaMessage(path, version));
    for (const migration of SQLITE_MIGRATIONS) if (migration.version > version) db.exec(migration.sql);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

function describeSqliteError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
